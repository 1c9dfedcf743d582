/* colour_scale.h — the colour scale of every picture tfenc draws: viridis,
 * readable in grey and with the common colour-vision deficiencies. */
#ifndef TFENC_COLOUR_SCALE_H
#define TFENC_COLOUR_SCALE_H

/* rgb[0..3) in 0..1 of v in 0..1 (clamped), by linear interpolation
 * between five of viridis's colours. */
void viridis(double v, double rgb[3]);

#endif
