#include "log/log_command.hpp"

#include <new>

namespace perfdm {

int run_log_command(const log_command_options& options, std::ostream& out, std::ostream& err) {
  log_print_options p;
  p.json = options.json;
  p.modules = options.modules;
  p.show_partial = options.show_partial;
  p.registry = options.registry;
  try {
    print_log(options.file, p, out);
    out.flush();
    if (!out) {
      err << "perfdm log: " << options.file << ": cannot write the output\n";
      return 1;
    }
    return 0;
  } catch (const log_error& e) {
    out.flush();
    err << "perfdm log: " << options.file << ": " << e.what() << '\n';
  } catch (const std::bad_alloc&) {
    out.flush();
    err << "perfdm log: " << options.file << ": out of memory\n";
  } catch (const std::exception& e) {
    out.flush();
    err << "perfdm log: " << options.file << ": " << e.what() << '\n';
  }
  return 1;
}

}  // namespace perfdm
