// A stand-in for the real worker, misbehaving on request: argv[1] picks the behaviour. It
// talks to the judge over fd 3 with the same framing as the real worker.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "../frame.hpp"

extern char** environ;

namespace {

using halo::remote::read_frame;
using halo::remote::ReadStatus;
using halo::remote::write_frame;

constexpr int kSocket = 3;

std::string next_request() {
  std::string request;
  if (read_frame(kSocket, request, 1ull << 30) != ReadStatus::ok) _exit(0);
  return request;
}

void reply(const std::string& text) {
  if (!write_frame(kSocket, text)) _exit(1);
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

std::string executable_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

int source_line_marker() { return 42; }

// What the real runtime does to name a source line: popen() addr2line on its own executable.
std::string ask_addr2line() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&source_line_marker), &info)) return "dladdr failed";
  auto offset = reinterpret_cast<uintptr_t>(&source_line_marker) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  char command[4300];
  std::snprintf(command, sizeof command, "addr2line -e '%s' 0x%lx 2>&1", executable_path().c_str(),
                static_cast<unsigned long>(offset));
  FILE* pipe = popen(command, "r");
  if (!pipe) return std::string("popen failed: ") + std::strerror(errno);
  char line[1024] = {};
  std::string out = std::fgets(line, sizeof line, pipe) ? line : "";
  int status = pclose(pipe);
  return out + " (status " + std::to_string(status) + ")";
}

std::string try_network(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return std::string("socket failed: ") + std::strerror(errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return std::string("connect failed: ") + std::strerror(errno);
  }
  return "connected";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "echo";

  if (mode == "exit3") _exit(3);
  if (mode == "hang") sleep_forever();
  if (mode == "closehang") {
    close(kSocket);
    sleep_forever();
  }

  if (mode == "exit3_orphan") {  // a child keeps the socket open after the worker is gone
    if (fork() == 0) sleep_forever();
    _exit(3);
  }

  std::string request = next_request();
  if (mode == "echo") {
    for (;;) {
      reply(request);
      request = next_request();
    }
  }
  if (mode == "crash") raise(SIGSEGV);
  if (mode == "exit_after_reply") {
    reply("bye");
    _exit(0);
  }

  std::string answer = "unknown mode " + mode;
  if (mode == "forkbomb") {
    int forked = 0;
    for (int failures = 0; failures < 100;) {
      pid_t pid = fork();
      if (pid == 0) {
        for (int k = 0; k < 1000; ++k) fork();  // every child is a bomb too, and keeps fd 3
        sleep_forever();
      }
      if (pid > 0) {
        ++forked;
        failures = 0;
      } else {
        ++failures;
      }
    }
    answer = "forked " + std::to_string(forked);
  } else if (mode == "escape") {
    pid_t first = fork();
    if (first == 0) {
      setsid();
      if (fork() == 0) {
        setsid();
        close(kSocket);
        sleep(1000);
      }
      _exit(0);
    }
    waitpid(first, nullptr, 0);
    answer = "escaped";
  } else if (mode == "bigfile") {
    std::vector<char> block(1 << 20, 'x');
    size_t written = 0;
    while (written < 200u << 20) {
      ssize_t n = write(1, block.data(), block.size());
      if (n <= 0) break;
      written += size_t(n);
    }
    answer = "wrote " + std::to_string(written);
  } else if (mode == "print") {
    std::printf("hello stdout\n");
    std::fflush(stdout);
    std::fprintf(stderr, "hello stderr \xff\xfe \xc3\xa9\n");
    answer = "printed";
  } else if (mode == "env") {
    answer.clear();
    for (char** e = environ; *e; ++e) answer += std::string(*e) + "\n";
  } else if (mode == "readfile") {
    std::ifstream file(argc > 2 ? argv[2] : "");
    char buf[64] = {};
    if (!file || !file.read(buf, sizeof buf - 1).gcount()) answer = "cannot open";
    else answer = std::string("read: ") + buf;
  } else if (mode == "whoami") {
    std::ifstream status("/proc/self/status");
    std::string line, caps = "?";
    while (std::getline(status, line)) {
      if (line.rfind("CapEff:", 0) == 0) caps = line.substr(8);
    }
    answer = std::to_string(getuid()) + " euid=" + std::to_string(geteuid()) + " CapEff=" + caps +
             " setuid0=" + (setuid(0) == 0 ? "succeeded" : "failed");
  } else if (mode == "net") {
    answer = try_network(argc > 2 ? std::atoi(argv[2]) : 22);
  } else if (mode == "addr2line") {
    answer = ask_addr2line();
  }
  reply(answer);
  // Stay alive until the judge closes the connection, like a real worker between requests.
  while (true) {
    next_request();
    reply(answer);
  }
  return 0;
}
