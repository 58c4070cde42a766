// Loads zlib at run time and keeps its streams behind opaque handles (see include/CFetchZlib.h).
#include "CFetchZlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// zlib's `z_stream`, with the layout of its documented ABI (zlib.h): uInt is unsigned int, uLong unsigned long.
struct z_stream {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
};

enum { Z_NO_FLUSH = 0, Z_SYNC_FLUSH = 2, Z_DEFLATED = 8, Z_DEFAULT_COMPRESSION = -1, Z_DEFAULT_STRATEGY = 0 };
enum { MAXIMUM_WINDOW = 1 << 15, MEMORY_LEVEL = 8 };
// The most bytes one call hands zlib: its counts are `unsigned int`.
static const size_t maximum_step = 1u << 30;

struct cfz_inflater {
    struct z_stream stream;
    int keeps_window;
};

struct cfz_deflater {
    struct z_stream stream;
};

// The functions, resolved once and never changed afterwards.
static struct {
    const char *(*version)(void);
    int (*inflate_init)(struct z_stream *stream, int window_bits, const char *version, int stream_size);
    int (*inflate)(struct z_stream *stream, int flush);
    int (*inflate_reset)(struct z_stream *stream);
    int (*inflate_end)(struct z_stream *stream);
    int (*deflate_init)(struct z_stream *stream, int level, int method, int window_bits, int memory_level,
                        int strategy, const char *version, int stream_size);
    int (*deflate)(struct z_stream *stream, int flush);
    int (*deflate_reset)(struct z_stream *stream);
    int (*deflate_end)(struct z_stream *stream);
    // Optional (zlib 1.2.7.1 and later): a final block keeps the window only with them.
    int (*inflate_get_dictionary)(struct z_stream *stream, unsigned char *dictionary, unsigned int *length);
    int (*inflate_set_dictionary)(struct z_stream *stream, const unsigned char *dictionary, unsigned int length);
} zlib;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
// 0: not tried; 1: loaded; -1: failed, with `load_error`.
static int load_state = 0;
static char load_error[256];

static int try_load(void) {
#ifdef __APPLE__
    const char *name = "libz.1.dylib";
#else
    const char *name = "libz.so.1";
#endif
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", name, reason ? reason : "unknown dlopen error");
        return -1;
    }
#define RESOLVE(field, symbol)                                                                                   \
    *(void **)&zlib.field = dlsym(library, symbol);                                                              \
    if (zlib.field == NULL) {                                                                                    \
        snprintf(load_error, sizeof load_error, "%s has no function %s", name, symbol);                          \
        dlclose(library);                                                                                        \
        return -1;                                                                                               \
    }
    RESOLVE(version, "zlibVersion")
    RESOLVE(inflate_init, "inflateInit2_")
    RESOLVE(inflate, "inflate")
    RESOLVE(inflate_reset, "inflateReset")
    RESOLVE(inflate_end, "inflateEnd")
    RESOLVE(deflate_init, "deflateInit2_")
    RESOLVE(deflate, "deflate")
    RESOLVE(deflate_reset, "deflateReset")
    RESOLVE(deflate_end, "deflateEnd")
#undef RESOLVE
    *(void **)&zlib.inflate_get_dictionary = dlsym(library, "inflateGetDictionary");
    *(void **)&zlib.inflate_set_dictionary = dlsym(library, "inflateSetDictionary");
    const char *version = zlib.version();
    if (version == NULL || version[0] != '1') {
        snprintf(load_error, sizeof load_error, "%s is zlib %s; Fetch needs zlib 1.x", name,
                 version ? version : "of an unknown version");
        dlclose(library);
        return -1;
    }
    return 0;  // the library stays loaded for the life of the process
}

int cfz_load(char *error, size_t error_size) {
    pthread_mutex_lock(&load_lock);
    if (load_state == 0) {
        load_state = try_load() == 0 ? 1 : -1;
    }
    int state = load_state;
    pthread_mutex_unlock(&load_lock);
    if (state != 1) {
        if (error != NULL && error_size > 0) {
            snprintf(error, error_size, "%s", load_error);
        }
        return -1;
    }
    return 0;
}

static int is_loaded(void) { return cfz_load(NULL, 0) == 0; }

cfz_inflater *cfz_inflater_new(int keeps_window) {
    if (!is_loaded()) {
        return NULL;
    }
    cfz_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) {
        return NULL;
    }
    inflater->keeps_window = keeps_window;
    // A negative window: raw DEFLATE, no zlib header or checksum.
    if (zlib.inflate_init(&inflater->stream, -15, zlib.version(), (int)sizeof(struct z_stream)) != CFZ_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

int cfz_inflate(cfz_inflater *inflater, const void *input, size_t input_length, size_t *consumed, void *output,
                size_t output_length, size_t *produced) {
    struct z_stream *stream = &inflater->stream;
    unsigned int in = (unsigned int)(input_length < maximum_step ? input_length : maximum_step);
    unsigned int out = (unsigned int)(output_length < maximum_step ? output_length : maximum_step);
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    int status = zlib.inflate(stream, Z_SYNC_FLUSH);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    if (status == CFZ_NEED_DICT) {
        return CFZ_DATA_ERROR;  // raw DEFLATE has no dictionary request; only corrupt data gets here
    }
    if (status == CFZ_STREAM_END) {
        // A final block ends the stream; a peer that keeps its window goes on from it in the next message.
        unsigned char *window = NULL;
        if (inflater->keeps_window && zlib.inflate_get_dictionary && zlib.inflate_set_dictionary) {
            window = malloc(MAXIMUM_WINDOW);
        }
        unsigned int length = 0;
        int kept = window != NULL && zlib.inflate_get_dictionary(stream, window, &length) == CFZ_OK &&
                   length <= MAXIMUM_WINDOW;
        zlib.inflate_reset(stream);
        if (kept && length > 0) {
            zlib.inflate_set_dictionary(stream, window, length);
        }
        free(window);
    }
    return status;
}

int cfz_inflater_reset(cfz_inflater *inflater) { return zlib.inflate_reset(&inflater->stream); }

const char *cfz_inflater_message(cfz_inflater *inflater) { return inflater->stream.msg; }

void cfz_inflater_free(cfz_inflater *inflater) {
    if (inflater != NULL) {
        zlib.inflate_end(&inflater->stream);
        free(inflater);
    }
}

cfz_deflater *cfz_deflater_new(int window_bits) {
    if (window_bits < 9 || window_bits > 15 || !is_loaded()) {
        return NULL;
    }
    cfz_deflater *deflater = calloc(1, sizeof *deflater);
    if (deflater == NULL) {
        return NULL;
    }
    if (zlib.deflate_init(&deflater->stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -window_bits, MEMORY_LEVEL,
                          Z_DEFAULT_STRATEGY, zlib.version(), (int)sizeof(struct z_stream)) != CFZ_OK) {
        free(deflater);
        return NULL;
    }
    return deflater;
}

int cfz_deflate(cfz_deflater *deflater, const void *input, size_t input_length, size_t *consumed, void *output,
                size_t output_length, size_t *produced, int sync_flush) {
    struct z_stream *stream = &deflater->stream;
    unsigned int in = (unsigned int)(input_length < maximum_step ? input_length : maximum_step);
    unsigned int out = (unsigned int)(output_length < maximum_step ? output_length : maximum_step);
    stream->next_in = input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    // A sync flush only once all the input is in this call; before that, compress without flushing.
    int flush = sync_flush && in == input_length ? Z_SYNC_FLUSH : Z_NO_FLUSH;
    int status = zlib.deflate(stream, flush);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    return status;
}

int cfz_deflater_reset(cfz_deflater *deflater) { return zlib.deflate_reset(&deflater->stream); }

void cfz_deflater_free(cfz_deflater *deflater) {
    if (deflater != NULL) {
        zlib.deflate_end(&deflater->stream);
        free(deflater);
    }
}
