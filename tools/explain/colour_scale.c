/* colour_scale.c — viridis. */
#include "colour_scale.h"

void viridis(double v, double rgb[3])
{
    static const double stops[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    const double x = v * 4;
    const int i = x >= 4 ? 3 : (int)x;
    const double f = x - i;
    for (int c = 0; c < 3; c++)
        rgb[c] = ((1 - f) * stops[i][c] + f * stops[i + 1][c]) / 255.0;
}
