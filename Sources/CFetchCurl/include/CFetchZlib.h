// The C boundary of permessage-deflate (RFC 7692): zlib is loaded at run time with dlopen, as libcurl is, so Fetch
// has no link-time dependency on it. Swift never sees zlib's `z_stream`: each stream lives in C behind an opaque
// handle, and every call moves bytes between two buffers the caller owns.
#ifndef CFETCHZLIB_H
#define CFETCHZLIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A raw DEFLATE decompressor (zlib's `inflate`).
typedef struct cfz_inflater cfz_inflater;
/// A raw DEFLATE compressor (zlib's `deflate`).
typedef struct cfz_deflater cfz_deflater;

// zlib's return codes that the callers tell apart.
enum {
    CFZ_OK = 0,
    CFZ_STREAM_END = 1,
    CFZ_NEED_DICT = 2,
    CFZ_STREAM_ERROR = -2,
    CFZ_DATA_ERROR = -3,
    CFZ_MEM_ERROR = -4,
    CFZ_BUF_ERROR = -5,
};

/// Loads zlib ("libz.so.1", or "libz.1.dylib") and resolves its functions, once per process. Returns 0 on success;
/// otherwise writes a sentence naming what is missing into `error` and returns -1, every later call too.
/// Thread-safe.
int cfz_load(char *error, size_t error_size);

/// A decompressor of raw DEFLATE data with a window of up to 2^15 bytes (which reads data compressed with any
/// smaller window), or NULL when zlib is not loaded or memory is short. `keeps_window`: after a final block (BFINAL)
/// the stream starts again with the window it had, rather than empty (RFC 7692's context takeover).
cfz_inflater *cfz_inflater_new(int keeps_window);
/// Inflates from `input` into `output`: sets how many bytes of each it consumed and produced. Returns CFZ_OK,
/// CFZ_BUF_ERROR when it could make no progress (more input or room is needed), or an error code; after a final
/// block it starts a new stream (see `cfz_inflater_new`) and returns CFZ_STREAM_END, leaving the rest of `input`
/// unconsumed.
int cfz_inflate(cfz_inflater *inflater, const void *input, size_t input_length, size_t *consumed, void *output,
                size_t output_length, size_t *produced);
/// Empties the window: the next data is a new stream.
int cfz_inflater_reset(cfz_inflater *inflater);
/// zlib's message for the last error, or NULL.
const char *cfz_inflater_message(cfz_inflater *inflater);
void cfz_inflater_free(cfz_inflater *inflater);

/// A compressor of raw DEFLATE data with a window of 2^`window_bits` bytes (9...15) and zlib's default level, or
/// NULL when zlib is not loaded, the window is out of range, or memory is short.
cfz_deflater *cfz_deflater_new(int window_bits);
/// Deflates from `input` into `output` with `Z_SYNC_FLUSH` (`sync_flush` non-zero, at the end of a message) or
/// `Z_NO_FLUSH`: sets how many bytes of each it consumed and produced. Returns CFZ_OK, CFZ_BUF_ERROR when it could
/// make no progress, or an error code.
int cfz_deflate(cfz_deflater *deflater, const void *input, size_t input_length, size_t *consumed, void *output,
                size_t output_length, size_t *produced, int sync_flush);
/// Empties the window: the next message is compressed on its own.
int cfz_deflater_reset(cfz_deflater *deflater);
void cfz_deflater_free(cfz_deflater *deflater);

#ifdef __cplusplus
}
#endif

#endif
