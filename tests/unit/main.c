/* main.c - runs every Check suite listed in suites.def. */
#include <check.h>
#include <stdlib.h>

#define SUITE(name) Suite *name##_suite(void);
#include "suites.def"
#undef SUITE

int main(void)
{
    SRunner *runner = srunner_create(NULL);
#define SUITE(name) srunner_add_suite(runner, name##_suite());
#include "suites.def"
#undef SUITE
    srunner_run_all(runner, CK_ENV); /* CK_VERBOSITY=verbose names every test */
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
