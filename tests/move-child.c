/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process that numaplace move's live tests move (tests/scripts/move.sh):
 *
 *   move-child THREADS [SPAWN [EXIT_MS]]
 *
 * starts THREADS threads that wait, then prints "ready". SIGUSR1 makes a
 * spawner thread start SPAWN more, one every 200 us, each inheriting the
 * spawner's CPUs (threads that appear while the process is being moved);
 * SIGUSR2 ends one waiting thread (a thread gone before the revert). With
 * EXIT_MS, the whole process exits that many milliseconds after "ready" (a
 * process that exits in the middle of its move). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int end_pipe[2], go_pipe[2];
static long spawn;

static void *waiter(void *arg)
{
	char c;
	(void)arg;
	while (read(end_pipe[0], &c, 1) != 1)
		;
	return NULL;
}

static void start(void)
{
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, waiter, NULL)) {
		perror("move-child: pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&attr);
}

static void *spawner(void *arg)
{
	char c;
	(void)arg;
	while (read(go_pipe[0], &c, 1) != 1)
		;
	for (long i = 0; i < spawn; i++) {
		start();
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
	/* Stays, as the threads it started: every thread a move journaled is
	 * there for its revert. */
	for (;;)
		pause();
}

static void on_signal(int sig)
{
	/* write(2) is async-signal-safe: the threads do the rest. */
	if (write(sig == SIGUSR1 ? go_pipe[1] : end_pipe[1], "x", 1) < 0)
		_exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: move-child THREADS [SPAWN [EXIT_MS]]\n");
		return 2;
	}
	long threads = atol(argv[1]), exit_ms = argc > 3 ? atol(argv[3]) : 0;
	spawn = argc > 2 ? atol(argv[2]) : 0;
	if (pipe(end_pipe) || pipe(go_pipe)) {
		perror("move-child: pipe");
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	for (long i = 0; i < threads; i++)
		start();
	pthread_t t;
	if (spawn && pthread_create(&t, NULL, spawner, NULL)) {
		perror("move-child: pthread_create");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (exit_ms) {
		nanosleep(&(struct timespec){ .tv_sec = exit_ms / 1000, .tv_nsec = exit_ms % 1000 * 1000000 }, NULL);
		_exit(0);
	}
	for (;;)
		pause();
}
