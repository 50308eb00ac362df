// See CImageCodec.h. libjpeg reports errors through `error_exit`, which must not return: it jumps back to the call
// with longjmp, after which the decompressor is destroyed and the call returns a code.
#include "CImageCodec.h"

#include <setjmp.h>
#include <stdio.h>   // before jpeglib.h, which names FILE
#include <jpeglib.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
} sc_jpeg_error;

static void sc_jpeg_error_exit(j_common_ptr info) {
    sc_jpeg_error *error = (sc_jpeg_error *)info->err;
    longjmp(error->jump, 1);
}

/// Warnings (a truncated file, a bad marker libjpeg can skip) are not errors: decoding goes on, as browsers do.
static void sc_jpeg_silent(j_common_ptr info) { (void)info; }
static void sc_jpeg_silent_level(j_common_ptr info, int level) { (void)info; (void)level; }

static int sc_is_jpeg(const uint8_t *data, size_t length) {
    return length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

static int sc_is_png(const uint8_t *data, size_t length) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    return length >= 24 && memcmp(data, signature, 8) == 0;
}

static uint32_t sc_big_endian32(const uint8_t *bytes) {
    return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) | bytes[3];
}

/// Opens a decompressor on `data` and reads its header; the caller has set up `error`'s jump.
static void sc_jpeg_open(struct jpeg_decompress_struct *info, sc_jpeg_error *error, const uint8_t *data, size_t length) {
    info->err = jpeg_std_error(&error->base);
    error->base.error_exit = sc_jpeg_error_exit;
    error->base.output_message = sc_jpeg_silent;
    error->base.emit_message = sc_jpeg_silent_level;
    jpeg_create_decompress(info);
    jpeg_mem_src(info, (unsigned char *)data, (unsigned long)length);
    jpeg_read_header(info, TRUE);
}

int sc_image_probe(const uint8_t *data, size_t length, int *format, int *width, int *height) {
    if (sc_is_png(data, length)) {
        if (memcmp(data + 12, "IHDR", 4) != 0) return SC_IMAGE_UNKNOWN_FORMAT;
        uint32_t w = sc_big_endian32(data + 16), h = sc_big_endian32(data + 20);
        if (w == 0 || h == 0 || w > 0x7FFFFFFF || h > 0x7FFFFFFF) return SC_IMAGE_UNKNOWN_FORMAT;
        *format = SC_FORMAT_PNG;
        *width = (int)w;
        *height = (int)h;
        return SC_IMAGE_OK;
    }
    if (!sc_is_jpeg(data, length)) return SC_IMAGE_UNKNOWN_FORMAT;
    struct jpeg_decompress_struct info;
    sc_jpeg_error error;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        return SC_IMAGE_UNKNOWN_FORMAT;
    }
    sc_jpeg_open(&info, &error, data, length);
    *format = SC_FORMAT_JPEG;
    *width = (int)info.image_width;
    *height = (int)info.image_height;
    jpeg_destroy_decompress(&info);
    return (*width > 0 && *height > 0) ? SC_IMAGE_OK : SC_IMAGE_UNKNOWN_FORMAT;
}

static int sc_jpeg_decode(const uint8_t *data, size_t length, int min_longest, int64_t max_pixels, sc_image *out) {
    struct jpeg_decompress_struct info;
    sc_jpeg_error error;
    uint8_t *volatile pixels = NULL;
    if (setjmp(error.jump)) {
        free(pixels);
        jpeg_destroy_decompress(&info);
        return SC_IMAGE_CORRUPT;
    }
    sc_jpeg_open(&info, &error, data, length);
    int64_t count = (int64_t)info.image_width * (int64_t)info.image_height;
    if (info.image_width == 0 || info.image_height == 0 || count > max_pixels) {
        jpeg_destroy_decompress(&info);
        return SC_IMAGE_TOO_LARGE;
    }
    // CMYK and YCCK (some print workflows) have no RGB conversion in libjpeg: refused rather than shown wrong.
    if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&info);
        return SC_IMAGE_UNKNOWN_FORMAT;
    }
    info.out_color_space = JCS_RGB;
    unsigned int longest = info.image_width > info.image_height ? info.image_width : info.image_height;
    unsigned int denominator = 1;
    while (min_longest > 0 && denominator < 8 && longest / (denominator * 2) >= (unsigned int)min_longest) denominator *= 2;
    info.scale_num = 1;
    info.scale_denom = denominator;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 3;
    pixels = malloc(stride * info.output_height);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&info);
        return SC_IMAGE_NO_MEMORY;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    out->width = (int)info.output_width;
    out->height = (int)info.output_height;
    out->pixels = pixels;
    jpeg_destroy_decompress(&info);
    return SC_IMAGE_OK;
}

static int sc_png_decode(const uint8_t *data, size_t length, int64_t max_pixels, sc_image *out) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) return SC_IMAGE_UNKNOWN_FORMAT;
    int64_t count = (int64_t)image.width * (int64_t)image.height;
    if (image.width == 0 || image.height == 0 || count > max_pixels) {
        png_image_free(&image);
        return SC_IMAGE_TOO_LARGE;
    }
    image.format = PNG_FORMAT_RGB;
    uint8_t *pixels = malloc((size_t)PNG_IMAGE_SIZE(image));
    if (pixels == NULL) {
        png_image_free(&image);
        return SC_IMAGE_NO_MEMORY;
    }
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, 0, NULL)) {
        free(pixels);
        png_image_free(&image);
        return SC_IMAGE_CORRUPT;
    }
    out->width = (int)image.width;
    out->height = (int)image.height;
    out->pixels = pixels;
    return SC_IMAGE_OK;
}

int sc_image_decode(const uint8_t *data, size_t length, int min_longest, int64_t max_pixels, sc_image *out) {
    if (sc_is_png(data, length)) return sc_png_decode(data, length, max_pixels, out);
    if (sc_is_jpeg(data, length)) return sc_jpeg_decode(data, length, min_longest, max_pixels, out);
    return SC_IMAGE_UNKNOWN_FORMAT;
}

/// Adds source row `row`, weighted, into `sums` (one float per channel of the row).
static void sc_accumulate_row(const uint8_t *row, int width, float weight, float *sums) {
    for (int i = 0; i < width * 3; i++) sums[i] += weight * (float)row[i];
}

int sc_image_resize(const sc_image *in, int width, int height, sc_image *out) {
    if (width <= 0 || height <= 0 || width > in->width || height > in->height) return SC_IMAGE_TOO_LARGE;
    uint8_t *pixels = malloc((size_t)width * (size_t)height * 3);
    float *sums = malloc(sizeof(float) * (size_t)in->width * 3);
    if (pixels == NULL || sums == NULL) {
        free(pixels);
        free(sums);
        return SC_IMAGE_NO_MEMORY;
    }
    double scaleX = (double)in->width / width, scaleY = (double)in->height / height;
    size_t sourceStride = (size_t)in->width * 3;
    for (int y = 0; y < height; y++) {
        memset(sums, 0, sizeof(float) * (size_t)in->width * 3);
        double top = y * scaleY, bottom = (y + 1) * scaleY;
        for (int sourceY = (int)top; sourceY < in->height && sourceY < bottom; sourceY++) {
            double from = sourceY > top ? sourceY : top, to = sourceY + 1 < bottom ? sourceY + 1 : bottom;
            sc_accumulate_row(in->pixels + sourceStride * (size_t)sourceY, in->width, (float)(to - from), sums);
        }
        uint8_t *target = pixels + (size_t)y * (size_t)width * 3;
        for (int x = 0; x < width; x++) {
            double left = x * scaleX, right = (x + 1) * scaleX;
            float channel[3] = {0, 0, 0};
            for (int sourceX = (int)left; sourceX < in->width && sourceX < right; sourceX++) {
                double from = sourceX > left ? sourceX : left, to = sourceX + 1 < right ? sourceX + 1 : right;
                float weight = (float)(to - from);
                for (int c = 0; c < 3; c++) channel[c] += weight * sums[sourceX * 3 + c];
            }
            float area = (float)(scaleX * scaleY);
            for (int c = 0; c < 3; c++) {
                float value = channel[c] / area + 0.5f;
                target[x * 3 + c] = value >= 255 ? 255 : (value <= 0 ? 0 : (uint8_t)value);
            }
        }
    }
    free(sums);
    out->width = width;
    out->height = height;
    out->pixels = pixels;
    return SC_IMAGE_OK;
}

int sc_jpeg_encode(const sc_image *image, int quality, uint8_t **out, size_t *length) {
    struct jpeg_compress_struct info;
    sc_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    info.err = jpeg_std_error(&error.base);
    error.base.error_exit = sc_jpeg_error_exit;
    error.base.output_message = sc_jpeg_silent;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return SC_IMAGE_CORRUPT;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&buffer, &size);
    info.image_width = (JDIMENSION)image->width;
    info.image_height = (JDIMENSION)image->height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    size_t stride = (size_t)image->width * 3;
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = image->pixels + stride * info.next_scanline;
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *length = size;
    return SC_IMAGE_OK;
}

void sc_image_free(sc_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}

void sc_buffer_free(uint8_t *buffer) { free(buffer); }
