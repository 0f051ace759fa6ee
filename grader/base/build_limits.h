/*
 * build_limits.h - how the build's time limit reads, shared by the jail and
 * the programs that start it (smemlab-batch).
 *
 * A build's limit is CPU time (--timeout, BUILD_TIMEOUT, --build-timeout):
 * what a submission costs to compile, the same on an idle laptop and on a
 * grading machine building a class two to a core. Its wall time is bounded
 * too, at BUILD_WALL_PER_CPU times that, for a build that waits instead of
 * computing; only a machine loaded past that reaches it with an honest file.
 */
#ifndef SMEMLAB_BUILD_LIMITS_H
#define SMEMLAB_BUILD_LIMITS_H

#define BUILD_WALL_PER_CPU 3.0

#endif
