#include "case_records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace halo::test::case_records {
namespace {

int& records_fd() {
  static int fd = -1;
  return fd;
}

// Everything printed so far is in the file before the offset is read: stdio's buffer, and
// doctest's std::cout (synchronised with stdio, flushed for certainty).
long long output_offset() {
  std::cout.flush();
  std::fflush(stdout);
  std::fflush(stderr);
  const off_t at = lseek(STDOUT_FILENO, 0, SEEK_CUR);
  return at < 0 ? -1 : static_cast<long long>(at);
}

void write_line(const std::string& line) {
  const int fd = records_fd();
  if (fd < 0) return;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // The caller stopped reading: without records it cannot grade this run, so it ends here.
      std::fprintf(stderr, "halo: the case records could not be written (%s)\n", std::strerror(errno));
      std::_Exit(3);
    }
    done += size_t(n);
  }
}

}  // namespace

int take_option(int argc, char** argv) {
  static const char kOption[] = "--halo-case-records=";
  int out = 1;
  for (int k = 1; k < argc; ++k) {
    if (std::strncmp(argv[k], kOption, sizeof kOption - 1) != 0) {
      argv[out++] = argv[k];
      continue;
    }
    char* end = nullptr;
    const long fd = std::strtol(argv[k] + sizeof kOption - 1, &end, 10);
    if (!end || *end != '\0' || fd < 3 || fd > 1 << 20 || fcntl(int(fd), F_GETFD) < 0) {
      std::fprintf(stderr, "halo: %s does not name an open descriptor above 2\n", argv[k]);
      std::exit(2);
    }
    // Not for any program this one starts: the worker closes every descriptor it was not given
    // anyway (grader/platform/linux/worker_process.cpp), and this says so where the fd is made.
    fcntl(int(fd), F_SETFD, FD_CLOEXEC);
    records_fd() = int(fd);
  }
  argv[out] = nullptr;
  return out;
}

void started(const std::string& name) {
  if (records_fd() < 0) return;
  write_line("start " + std::to_string(output_offset()) + " " + name + "\n");
}

void ended(const std::string& name, bool passed) {
  if (records_fd() < 0) return;
  write_line("end " + std::to_string(output_offset()) + (passed ? " passed " : " failed ") + name + "\n");
}

}  // namespace halo::test::case_records
