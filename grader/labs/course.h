/*
 * course.h - the instructor's course file: an overlay on the lab tables,
 * read by every program that knows the labs (the grader, the batch, the
 * docs' facts), so that a course's points, speed thresholds and left-out
 * steps are the same wherever a number is shown or a grade is given
 * (docs/instructors.md#course).
 *
 *   # a comment
 *   lab9 transposeSmemPad speed points 0      a check's points (0: not run)
 *   lab9 transposeSmemPad speed fraction 0.7  the speed threshold, a fraction of the
 *                                             reference (issue 41's roof), by kernel
 *   lab9 transposeSmemUnrollPadDyn omit       a step left out: not graded, not counted
 *   late-penalty 10%                          (the batch) points off a late submission
 *   extra-points extra.csv                    (the batch) student,points,why
 *
 * The tables stay the kit's (grader/labs/labN.c); course_apply replaces a
 * lab's entry of the registry by a copy with the course's changes.
 */
#ifndef SMEMLAB_COURSE_H
#define SMEMLAB_COURSE_H

#include <stddef.h>

#define COURSE_NONE "none"

typedef struct course {
    char path[1024];      /* "" where no course file is read */
    char sha256[65];      /* of its bytes ("" without one) */
    double late_penalty;  /* fraction of the points a late submission loses (0..1) */
    char extra_points[1024]; /* a CSV of extra points, relative to the course file's folder */
    int rules;            /* lines that changed a table */
} course;

/*
 * Read the course file at path and apply it to the lab registry. path NULL:
 * the kit's course.conf beside the program's build folder (exe/../course.conf)
 * where there is one; "none": no course file. 0, or -1 with the line and
 * what to do in why (the caller stops: a course half read grades nothing).
 */
int course_load(const char *path, const char *exe, course *out, char *why, size_t why_size);

/* The course read by course_load (path "" where none was). */
const course *course_current(void);

#endif
