/*
 * landlock_rights.h - what Landlock this kernel has, shared by the two
 * sandboxes that use it: the recorder's (grader/record/sandbox.c, only the
 * lab library may be opened) and the build jail's (grader/jail/landlock.c).
 * Rights this kernel's ABI does not know are never asked for: a ruleset that
 * names them is refused.
 */
#ifndef SMEMLAB_LANDLOCK_RIGHTS_H
#define SMEMLAB_LANDLOCK_RIGHTS_H

#include <linux/landlock.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef SYS_landlock_create_ruleset
/* Landlock's ABI version in this kernel, or 0 where it has none. */
static inline int landlock_abi_now(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

/* Every file-system right this ABI and these headers both know. */
static inline uint64_t landlock_fs_rights(int abi)
{
    uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                 LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
    (void)abi;
    return r;
}
#endif

#endif
