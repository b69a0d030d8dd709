/* gst-opencl tests: an LD_PRELOAD library that prints where a program crashed.
 *
 * The GPU machine has no debugger and keeps no core files. Preloaded (tests/gl-soak.sh does),
 * this library
 *  - lets any process of the same user trace the program (PR_SET_PTRACER), so that a watchdog
 *    may run eu-stack on a program that hangs even where Yama allows tracing descendants only;
 *  - on SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGABRT writes "crash-stack: signal N in thread T",
 *    the crashing thread's frames (glibc's backtrace: library and offset) and, when eu-stack is
 *    on PATH, every thread's stack (given 30 s), to stderr; then the signal takes its default action (the same exit status).
 * Nothing of it runs unless the program crashes. Not async-signal-safe: a diagnosis, not a
 * recovery.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include <execinfo.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace {

void
write_text (const char *text)
{
  ssize_t ignored = write (STDERR_FILENO, text, strlen (text));
  (void) ignored;
}

void
all_stacks ()
{
  char pid[32];
  snprintf (pid, sizeof pid, "%d", (int) getpid ());
  pid_t child = fork ();
  if (child == 0) {
    dup2 (STDERR_FILENO, STDOUT_FILENO);
    /* Bounded: tracing a thread stuck inside a driver can block. */
    execlp ("timeout", "timeout", "-s", "KILL", "30", "eu-stack", "-p", pid, (char *) nullptr);
    write_text ("crash-stack: no eu-stack on PATH: the crashing thread only\n");
    _exit (127);
  }
  if (child > 0)
    waitpid (child, nullptr, 0);
}

void
on_crash (int signal_number)
{
  char line[96];
  snprintf (line, sizeof line, "crash-stack: signal %d in thread %ld\n", signal_number,
      (long) syscall (SYS_gettid));
  write_text (line);
  void *frames[64];
  int count = backtrace (frames, 64);
  backtrace_symbols_fd (frames, count, STDERR_FILENO);
  all_stacks ();
  signal (signal_number, SIG_DFL);
  raise (signal_number);
}

__attribute__((constructor)) void
install ()
{
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  /* Loads libgcc's unwinder now: backtrace () would otherwise dlopen it inside the handler. */
  void *warm[1];
  backtrace (warm, 1);
  for (int signal_number : { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT })
    signal (signal_number, on_crash);
}

}  // namespace
