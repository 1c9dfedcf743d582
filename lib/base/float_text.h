/* float_text.h — a float32 as the shortest decimal text that reads back
 * (strtof) as the same float: the JSON and text of every vector the tools
 * write, so that output parsed back gives the same bits. */
#ifndef TF_FLOAT_TEXT_H
#define TF_FLOAT_TEXT_H

#include <stddef.h>

/* The longest text and its NUL: "-1.23456789e-38" (9 digits). */
enum { TF_FLOAT_TEXT_MAX = 16 };

/* out = v with the fewest significant digits (1 to 9, FLT_DECIMAL_DIG)
 * that read back as v, laid out as printf's "%.<digits>g" lays it out
 * ("0.125", "1e+02", "-3.5e-07"; "nan", "inf", "-inf", "-0"); the same
 * text as the first of "%.1g".."%.9g" that strtof reads back as v. Returns
 * the length. */
size_t tf__float_text(char out[TF_FLOAT_TEXT_MAX], float v);

#endif
