// Decoding, scaling and encoding of the photos the server stores (core.telegram.org/api/files#image-thumbnail-types):
// JPEG through libjpeg-turbo (Debian: libjpeg62-turbo-dev), whose DCT-domain scaling decodes a large photo at an
// eighth of its size when only the small sizes are wanted, and PNG through libpng's simplified API (libpng-dev).
// Every function bounds its work before it allocates: the header's dimensions are checked against `max_pixels`
// first, and a library error ends the call with a code instead of the process (libjpeg's default error handler
// calls exit()).
#ifndef CIMAGECODEC_H
#define CIMAGECODEC_H

#include <stddef.h>
#include <stdint.h>

enum {
    SC_IMAGE_OK = 0,
    /// Not a JPEG nor a PNG, or its header cannot be read.
    SC_IMAGE_UNKNOWN_FORMAT = 1,
    /// More pixels than the caller allows, or a zero side.
    SC_IMAGE_TOO_LARGE = 2,
    /// The library found the data corrupt while decoding.
    SC_IMAGE_CORRUPT = 3,
    SC_IMAGE_NO_MEMORY = 4,
};

enum {
    SC_FORMAT_JPEG = 1,
    SC_FORMAT_PNG = 2,
};

/// Pixels as 8-bit RGB, rows packed (stride = 3 × width).
typedef struct {
    int width;
    int height;
    uint8_t *pixels;
} sc_image;

/// The format and dimensions in `data`'s header, without decoding the pixels.
int sc_image_probe(const uint8_t *data, size_t length, int *format, int *width, int *height);

/// Decodes `data` to RGB. A JPEG is scaled down in the DCT domain by the largest power of two (at most 8) that keeps
/// its longest side at or above `min_longest` (0: full size); a PNG is decoded whole and its alpha composited over
/// white. Refuses images of more than `max_pixels` pixels before allocating. `out` is set only on success.
int sc_image_decode(const uint8_t *data, size_t length, int min_longest, int64_t max_pixels, sc_image *out);

/// Resizes by averaging the source pixels each target pixel covers (a box filter: no ringing, exact when downscaling
/// by an integer factor). Only downscaling: `width` ≤ `in->width` and `height` ≤ `in->height`.
int sc_image_resize(const sc_image *in, int width, int height, sc_image *out);

/// Encodes `image` as a baseline JPEG at `quality` (1–100) with libjpeg's standard Huffman tables and 2×2 chroma
/// subsampling. `*out` is malloc'ed; free it with `sc_buffer_free`.
int sc_jpeg_encode(const sc_image *image, int quality, uint8_t **out, size_t *length);

void sc_image_free(sc_image *image);
void sc_buffer_free(uint8_t *buffer);

#endif
