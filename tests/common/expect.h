/* expect.h — asserting a failure's status and message. Test-only. */
#ifndef TEST_EXPECT_H
#define TEST_EXPECT_H

#include <check.h>
#include <string.h>

#include "tfenc.h"

/* `call` returns `status` and tf_last_error() contains `text`. */
#define expect_failure(call, status, text)                                                        \
    do {                                                                                          \
        const tf_status got_ = (call);                                                            \
        ck_assert_msg(got_ == (status), "%s: expected %s, got %s (%s)", #call,                    \
                      tf_status_name(status), tf_status_name(got_), tf_last_error());             \
        ck_assert_msg(strstr(tf_last_error(), (text)) != NULL, "%s: message \"%s\" lacks \"%s\"", \
                      #call, tf_last_error(), (text));                                            \
    } while (0)

/* `call` returns `status` and tf_last_error() is exactly `text`. */
#define expect_message(call, status, text)                                            \
    do {                                                                              \
        const tf_status got_ = (call);                                                \
        ck_assert_msg(got_ == (status), "%s: expected %s, got %s (%s)", #call,        \
                      tf_status_name(status), tf_status_name(got_), tf_last_error()); \
        ck_assert_str_eq(tf_last_error(), (text));                                    \
    } while (0)

#endif
