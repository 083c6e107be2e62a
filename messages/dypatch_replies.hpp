// The replies of the DYPATCH requests as the agent writes them, from their structs: MODEL
// (the frame types a schema defines), DIRECTORY (where generated files go) and PATCH (the
// files generated for a model). Each reads back with its parser (RapidXML).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

// MODEL took the schema `name`; it defines the frame types `frames` (struct names).
struct dypatch_model_reply {
  std::string name;
  std::vector<std::string> frames;
  bool operator==(const dypatch_model_reply& o) const {
    return name == o.name && frames == o.frames;
  }
};

// `<MODEL NAME='n'><FRAME NAME='f'/>…</MODEL>`.
std::string print_dypatch_model_reply(const dypatch_model_reply& x);
std::optional<dypatch_model_reply> parse_dypatch_model_reply(std::string_view text);

// DIRECTORY set the directory of generated files.
struct dypatch_directory_reply {
  std::string name;
  bool operator==(const dypatch_directory_reply& o) const { return name == o.name; }
};

// `<DIRECTORY NAME='d'/>`.
std::string print_dypatch_directory_reply(const dypatch_directory_reply& x);
std::optional<dypatch_directory_reply> parse_dypatch_directory_reply(std::string_view text);

// PATCH MODEL='m' wrote the files `files` (paths) for the model `model`.
struct dypatch_patch_reply {
  std::string model;
  std::vector<std::string> files;
  bool operator==(const dypatch_patch_reply& o) const {
    return model == o.model && files == o.files;
  }
};

// `<PATCH MODEL='m'><FILE NAME='path'/>…</PATCH>`.
std::string print_dypatch_patch_reply(const dypatch_patch_reply& x);
std::optional<dypatch_patch_reply> parse_dypatch_patch_reply(std::string_view text);

}  // namespace perfdm
