/* exit_codes.h - the grader's exit status, documented in docs/ and `--help`. */
#ifndef SMEMLAB_EXIT_CODES_H
#define SMEMLAB_EXIT_CODES_H

#define EXIT_ALL_PASSED 0  /* every check passed */
#define EXIT_CHECK_FAILED 1 /* at least one check failed */
#define EXIT_USAGE 2       /* bad command line */
#define EXIT_ENVIRONMENT 3 /* no GPU or driver, lab not built or off-contract, JSON not writable */
#define EXIT_NOT_MEASURED 4 /* nothing failed, but some checks could not be measured
                              or graded (an instrument's limit) */

/* Not the grader's: a measuring process (worker or meter server) that found a
   launch still running after --timeout exits with this status. */
#define WORKER_EXIT_TIMEOUT 42

#endif
