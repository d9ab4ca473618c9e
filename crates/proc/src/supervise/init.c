/* barrage-init: PID 1 of a contender's PID namespace (crates/proc/src/supervise/contain.rs).
 *
 * argv: barrage-init REPORT_FD PROGRAM ARG...
 *
 * barrage starts this program as its own child in a new PID namespace; it runs PROGRAM (the
 * contender's `sh -c`) as its child and reaps every process of the namespace. It writes "S\n" to
 * REPORT_FD once PROGRAM's process exists (barrage's spawn returns then, so a sampler started
 * after it sees this init named and its child in the tree). When PROGRAM
 * ends it writes "WAIT_STATUS\n" to REPORT_FD at once (barrage's "the command ended"), gives
 * what PROGRAM left 500 ms to end on its own, counts what is still running, kills and reaps it,
 * writes "LEFT\n" and exits with PROGRAM's exit code (128 + N for a signal N: an init cannot
 * kill itself with a signal; barrage reads the exact status from the report).
 * When it exits, the kernel kills every process left in the namespace; barrage kills it with
 * SIGKILL (always delivered from a parent namespace) to end the namespace at once, and the death
 * signal barrage set before exec kills it when barrage dies in any way.
 *
 * Signals without a handler sent to a namespace's init from outside are dropped by the kernel,
 * so the stop signal barrage sends to the contender's process group reaches PROGRAM and its
 * group but not this init.
 *
 * It also gives the namespace private mounts and a /proc of its own (as bubblewrap does), so
 * the pids the contender sees from getpid() are the ones in its /proc. Best effort: without
 * them the contender still runs, in the namespace, with barrage's /proc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Live processes of this namespace other than this init (zombies excluded). */
static int count_others(void) {
  char mine[64], self[32];
  ssize_t n = readlink("/proc/self/ns/pid", mine, sizeof mine - 1);
  if (n < 0) return 0;
  mine[n] = 0;
  n = readlink("/proc/self", self, sizeof self - 1);
  self[n < 0 ? 0 : n] = 0;
  DIR *d = opendir("/proc");
  if (!d) return 0;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || strcmp(e->d_name, self) == 0) continue;
    char path[96], link[64], stat[512];
    snprintf(path, sizeof path, "/proc/%s/ns/pid", e->d_name);
    n = readlink(path, link, sizeof link - 1);
    if (n < 0) continue;
    link[n] = 0;
    if (strcmp(link, mine) != 0) continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) continue;
    stat[n] = 0;
    char *paren = strrchr(stat, ')');
    if (paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X')) continue;
    count++;
  }
  closedir(d);
  return count;
}

static long ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv) {
  if (argc < 3) return 127;
  int report = atoi(argv[1]);
  prctl(PR_SET_NAME, "barrage-init", 0, 0, 0);
  if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
  pid_t child = fork();
  if (child < 0) return 127;
  if (child == 0) {
    close(report);
    execv(argv[2], argv + 2);
    _exit(127);
  }
  if (write(report, "S\n", 2) < 0) { /* barrage is gone: nothing to tell */ }
  /* Hold none of the contender's pipes: their readers see the end when its processes end. */
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
  }
  int status = 0;
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p == child) {
      status = st;
      char msg[32];
      int len = snprintf(msg, sizeof msg, "%d\n", status);
      if (write(report, msg, len) < 0) { /* barrage is gone: nothing to tell */ }
      break;
    }
    if (p < 0 && errno != EINTR) break;
  }
  int left = 0;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    pid_t p = waitpid(-1, NULL, WNOHANG);
    if (p < 0 && errno == ECHILD) break; /* nothing is left in the namespace */
    if (p > 0) continue;
    if (ms_since(&t0) >= 500) {
      left = count_others();
      /* End them here rather than by exiting: what the kernel kills as it empties the namespace
       * of an exiting init is reaped without adding its CPU time to the init's children's,
       * and barrage's wait4 must see it. (kill(-1) from an init reaches every other process of
       * its namespace.) */
      kill(-1, SIGKILL);
      while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
      }
      break;
    }
    struct timespec nap = {0, 5 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  char msg[32];
  int len = snprintf(msg, sizeof msg, "%d\n", left);
  if (write(report, msg, len) < 0) { /* barrage is gone: nothing to tell */ }
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  _exit(128 + WTERMSIG(status));
}
