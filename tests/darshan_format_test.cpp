// Darshan's format facts (darshan/): record ids by Jenkins' 64-bit hash, path cleaning, the
// size buckets, module ids and counter lists.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "darshan/darshan_buckets.hpp"
#include "darshan/darshan_counters.hpp"
#include "darshan/darshan_format.hpp"
#include "darshan/darshan_record_id.hpp"

using namespace perfdm::darshan;

TEST_CASE("darshan record ids equal the ids of Darshan's logs for the same names") {
  // Names and ids as they stand in the name records of Darshan's example logs (3.5.0 and
  // 3.21 runtimes) and of logs written by Darshan 3.5.0 on this project's machine.
  CHECK(record_id("<STDIN>") == 14734109647742566553ULL);
  CHECK(record_id("<STDOUT>") == 15920181672442173319ULL);
  CHECK(record_id("<STDERR>") == 7238257241479193519ULL);
  CHECK(record_id("heatmap:POSIX") == 16592106915301738621ULL);
  CHECK(record_id("heatmap:STDIO") == 3989511027826779520ULL);
  CHECK(record_id("heatmap:MPIIO") == 3668870418325792824ULL);
  CHECK(record_id("a") == 2110215103713784748ULL);
  CHECK(record_id("/tmp/x.dat") == 6509962763214165340ULL);
  CHECK(record_id("darshan-bgq-record") == 17224881367579287459ULL);
  CHECK(record_id("/tmp/tmp/mpi-io-test.tmp.dat") == 11344915649860608681ULL);
  // 54 bytes: two full 24-byte blocks and a 6-byte tail.
  CHECK(record_id("/projects/radix-io/snyder/tmp/test/mpi-io-test.tmp.dat") ==
        5367110662850514526ULL);
  // 46 bytes: one block and a 22-byte tail, which reaches into c.
  CHECK(record_id("/home/carns/working/dbg/darshan-examples/foo749") ==
        10012036266706645273ULL);
  CHECK(record_id("/home/carns/working/dbg/darshan-examples/foo908") ==
        10035696740242999115ULL);
  // The empty name and a different level.
  CHECK(record_id("") != record_id("a"));
  const unsigned char b[] = {'a'};
  CHECK(jenkins_hash64(b, 1, 1) != jenkins_hash64(b, 1, 0));
}

TEST_CASE("darshan record ids are computed at compile time") {
  constexpr unsigned char k[] = {'<', 'S', 'T', 'D', 'I', 'N', '>'};
  static_assert(jenkins_hash64(k, sizeof k) == 14734109647742566553ULL);
}

TEST_CASE("darshan path cleaning prefixes the working directory and folds // and /./") {
  CHECK(clean_path("out.dat", "/home/u") == "/home/u/out.dat");
  CHECK(clean_path("./out.dat", "/home/u") == "/home/u/out.dat");
  CHECK(clean_path("/a//b///c", "/x") == "/a/b/c");
  CHECK(clean_path("/a/./b/././c", "/x") == "/a/b/c");
  CHECK(clean_path("sub/", "/") == "/sub/");
  // No ".." resolution, special names untouched.
  CHECK(clean_path("/a/../b", "/x") == "/a/../b");
  CHECK(clean_path("<STDOUT>", "/x") == "<STDOUT>");
  CHECK(clean_path("", "/x") == "");
  CHECK(record_id(clean_path("x.dat", "/tmp")) == 6509962763214165340ULL);
}

TEST_CASE("darshan size buckets have inclusive upper edges") {
  CHECK(size_bucket(0) == 0);
  CHECK(size_bucket(-5) == 0);
  CHECK(size_bucket(100) == 0);
  CHECK(size_bucket(101) == 1);
  CHECK(size_bucket(4096) == 2);
  CHECK(size_bucket(1048576) == 4);
  CHECK(size_bucket(1048577) == 5);
  CHECK(size_bucket(104857601) == 8);
  CHECK(size_bucket(std::int64_t{1} << 40) == 9);
  CHECK(std::string("POSIX_SIZE_READ") + size_bucket_suffixes[size_bucket(5000)] ==
        posix_counter_names[POSIX_SIZE_READ_1K_10K]);
}

TEST_CASE("darshan module ids and counter lists follow Darshan's order") {
  CHECK(POSIX_MOD == 1);
  CHECK(STDIO_MOD == 9);
  CHECK(HEATMAP_MOD == 15);
  CHECK(known_module_count == 18);
  CHECK(std::string(module_names[MPIIO_MOD]) == "MPI-IO");
  CHECK(module_versions[POSIX_MOD] == 4);
  CHECK(module_versions[DXT_MPIIO_MOD] == 3);
  CHECK(POSIX_NUM_INDICES == 69);
  CHECK(POSIX_F_NUM_INDICES == 17);
  CHECK(std::string(posix_counter_names[POSIX_RENAMED_FROM]) == "POSIX_RENAMED_FROM");
  CHECK(std::string(posix_f_counter_names[POSIX_F_META_TIME]) == "POSIX_F_META_TIME");
  CHECK(STDIO_NUM_INDICES == 14);
  CHECK(std::string(stdio_f_counter_names[0]) == "STDIO_F_META_TIME");
  CHECK(MPIIO_NUM_INDICES == 51);
  CHECK(H5D_NUM_INDICES == 94);
  CHECK(PNETCDF_VAR_NUM_INDICES == 120);
  CHECK(std::string(lustre_comp_counter_names[LUSTRE_COMP_MIRROR_ID]) ==
        "LUSTRE_COMP_MIRROR_ID");
  CHECK(posix_record_size == 704);
  CHECK(stdio_record_size == 248);
  CHECK(mpiio_record_size == 560);
  CHECK(header_size == 1328);
  CHECK(exe_len == 3015);
}
