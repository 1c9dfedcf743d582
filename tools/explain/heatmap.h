/* heatmap.h — attention weights drawn as PNG heatmaps. */
#ifndef TFENC_HEATMAP_H
#define TFENC_HEATMAP_H

#include <stddef.h>

#include "recording.h"

/* Writes the [1, H, T, T] weights of one layer as a grid of H heatmaps with
 * the T token labels; 0, or -1 with a message in err. */
int heatmap_write(const char *path, const recorded *weights, const char (*labels)[16], int layer,
                  char *err, size_t err_size);

/* The image size for T tokens and H heads; -1 without cairo. */
int heatmap_size(int T, int H, int *width, int *height);

#endif
