// The C boundary of Fetch's libcurl transport. libcurl is loaded at run time with dlopen, so this header declares
// the few types and constants the transport uses itself, with the values of libcurl's documented ABI, and no Swift
// code ever calls a variadic C function: every curl_easy_setopt / curl_multi_setopt / curl_easy_getinfo call goes
// through a typed wrapper below.
#ifndef CFETCHCURL_H
#define CFETCHCURL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An easy handle (libcurl's `CURL *`).
typedef struct cfcurl_easy cfcurl_easy;
/// A multi handle (libcurl's `CURLM *`).
typedef struct cfcurl_multi cfcurl_multi;

/// libcurl's `struct curl_slist`.
typedef struct cfcurl_slist {
    char *data;
    struct cfcurl_slist *next;
} cfcurl_slist;

/// The type of CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION callbacks.
typedef size_t (*cfcurl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);

/// The type of a CURLOPT_XFERINFOFUNCTION callback: returns non-zero to abort the transfer.
typedef int (*cfcurl_progress_callback)(void *userdata, int64_t download_total, int64_t downloaded,
                                        int64_t upload_total, int64_t uploaded);

/// The type of a CURLOPT_SEEKFUNCTION callback: returns 0 (done), 1 (fail) or 2 (cannot seek).
typedef int (*cfcurl_seek_callback)(void *userdata, int64_t offset, int origin);

/// What `cfcurl_version` reports about the loaded library.
typedef struct cfcurl_version_info {
    unsigned int version_num;  // 0xXXYYZZ
    const char *version;
    int features;              // CFCURL_VERSION_* bits
    const char *ssl_version;   // may be NULL
} cfcurl_version_info;

// Option kinds (libcurl's CURLOPTTYPE_*) and the options used, as `kind + number`.
enum {
    CFCURLOPT_WRITEDATA = 10001,
    CFCURLOPT_URL = 10002,
    CFCURLOPT_READDATA = 10009,
    CFCURLOPT_ERRORBUFFER = 10010,
    CFCURLOPT_WRITEFUNCTION = 20011,
    CFCURLOPT_READFUNCTION = 20012,
    CFCURLOPT_HTTPHEADER = 10023,
    CFCURLOPT_HEADERDATA = 10029,
    CFCURLOPT_CUSTOMREQUEST = 10036,
    CFCURLOPT_NOPROGRESS = 43,
    CFCURLOPT_NOBODY = 44,
    CFCURLOPT_UPLOAD = 46,
    CFCURLOPT_POST = 47,
    CFCURLOPT_FOLLOWLOCATION = 52,
    CFCURLOPT_SSL_VERIFYPEER = 64,
    CFCURLOPT_CAINFO = 10065,
    CFCURLOPT_HEADERFUNCTION = 20079,
    CFCURLOPT_HTTPGET = 80,
    CFCURLOPT_SSL_VERIFYHOST = 81,
    CFCURLOPT_HTTP_VERSION = 84,
    CFCURLOPT_NOSIGNAL = 99,
    CFCURLOPT_ACCEPT_ENCODING = 10102,
    CFCURLOPT_PRIVATE = 10103,
    CFCURLOPT_INFILESIZE_LARGE = 30115,
    CFCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CFCURLOPT_TIMEOUT_MS = 155,
    CFCURLOPT_LOW_SPEED_LIMIT = 19,
    CFCURLOPT_LOW_SPEED_TIME = 20,
    CFCURLOPT_HTTP_CONTENT_DECODING = 158,
    CFCURLOPT_PROTOCOLS = 181,
    CFCURLOPT_SEEKFUNCTION = 20167,
    CFCURLOPT_SEEKDATA = 10168,
    CFCURLOPT_PINNEDPUBLICKEY = 10230,
    CFCURLOPT_PIPEWAIT = 237,
    CFCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CFCURLOPT_PROTOCOLS_STR = 10318,
    CFCURLOPT_OPENSOCKETFUNCTION = 20163,
    // The WebSocket connection (connect only, then curl_easy_send / curl_easy_recv).
    CFCURLOPT_CONNECT_ONLY = 141,
    CFCURLOPT_CONNECTTIMEOUT_MS = 156,
    CFCURLOPT_HTTPPROXYTUNNEL = 61,
    CFCURLOPT_XFERINFODATA = 10057,
    CFCURLOPT_XFERINFOFUNCTION = 20219,
};

// Multi options (libcurl's CURLMOPT_*).
enum {
    CFCURLMOPT_PIPELINING = 3,
    CFCURLMOPT_MAXCONNECTS = 6,
    CFCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

// Information (libcurl's CURLINFO_*).
enum {
    CFCURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CFCURLINFO_PRIVATE = 0x100000 + 21,
    CFCURLINFO_HTTP_VERSION = 0x200000 + 46,
    CFCURLINFO_LOCAL_PORT = 0x200000 + 42,
    CFCURLINFO_ACTIVESOCKET = 0x500000 + 44,
    // What a transfer measured (see CurlMetrics.swift).
    CFCURLINFO_HEADER_SIZE = 0x200000 + 11,
    CFCURLINFO_REQUEST_SIZE = 0x200000 + 12,
    CFCURLINFO_NUM_CONNECTS = 0x200000 + 26,
    CFCURLINFO_PRIMARY_IP = 0x100000 + 32,
    CFCURLINFO_PRIMARY_PORT = 0x200000 + 40,
    CFCURLINFO_SIZE_UPLOAD_T = 0x600000 + 7,
    CFCURLINFO_SIZE_DOWNLOAD_T = 0x600000 + 8,
    CFCURLINFO_TOTAL_TIME_T = 0x600000 + 50,
    CFCURLINFO_NAMELOOKUP_TIME_T = 0x600000 + 51,
    CFCURLINFO_CONNECT_TIME_T = 0x600000 + 52,
    CFCURLINFO_PRETRANSFER_TIME_T = 0x600000 + 53,
    CFCURLINFO_STARTTRANSFER_TIME_T = 0x600000 + 54,
    CFCURLINFO_APPCONNECT_TIME_T = 0x600000 + 56,
};

// Values.
enum {
    CFCURL_HTTP_VERSION_1_0 = 1,
    CFCURL_HTTP_VERSION_1_1 = 2,
    CFCURL_HTTP_VERSION_2_0 = 3,
    CFCURL_HTTP_VERSION_2TLS = 4,
    CFCURL_HTTP_VERSION_3 = 30,
    CFCURLPIPE_MULTIPLEX = 2,
    CFCURLPROTO_HTTP_HTTPS = 3,
    CFCURL_ERROR_SIZE = 256,
    CFCURL_READFUNC_ABORT = 0x10000000,
    CFCURL_SEEKFUNC_OK = 0,
    CFCURL_SEEKFUNC_FAIL = 1,
    CFCURL_SEEKFUNC_CANTSEEK = 2,
    CFCURL_VERSION_SSL = 1 << 2,
    CFCURL_VERSION_LIBZ = 1 << 3,
    CFCURL_VERSION_HTTP2 = 1 << 16,
    CFCURL_VERSION_BROTLI = 1 << 23,
    CFCURL_VERSION_ZSTD = 1 << 26,
};

// Result codes (libcurl's CURLcode) that the transport tells apart.
enum {
    CFCURLE_OK = 0,
    CFCURLE_UNSUPPORTED_PROTOCOL = 1,
    CFCURLE_URL_MALFORMAT = 3,
    CFCURLE_COULDNT_RESOLVE_PROXY = 5,
    CFCURLE_COULDNT_RESOLVE_HOST = 6,
    CFCURLE_COULDNT_CONNECT = 7,
    CFCURLE_WEIRD_SERVER_REPLY = 8,
    CFCURLE_HTTP2 = 16,
    CFCURLE_PARTIAL_FILE = 18,
    CFCURLE_WRITE_ERROR = 23,
    CFCURLE_READ_ERROR = 26,
    CFCURLE_OUT_OF_MEMORY = 27,
    CFCURLE_OPERATION_TIMEDOUT = 28,
    CFCURLE_SSL_CONNECT_ERROR = 35,
    CFCURLE_ABORTED_BY_CALLBACK = 42,
    CFCURLE_GOT_NOTHING = 52,
    CFCURLE_SEND_ERROR = 55,
    CFCURLE_RECV_ERROR = 56,
    CFCURLE_SSL_CERTPROBLEM = 58,
    CFCURLE_SSL_CIPHER = 59,
    CFCURLE_PEER_FAILED_VERIFICATION = 60,
    CFCURLE_BAD_CONTENT_ENCODING = 61,
    CFCURLE_SEND_FAIL_REWIND = 65,
    CFCURLE_SSL_CACERT_BADFILE = 77,
    CFCURLE_SSL_ISSUER_ERROR = 83,
    CFCURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CFCURLE_SSL_INVALIDCERTSTATUS = 91,
    CFCURLE_HTTP2_STREAM = 92,
    CFCURLE_SSL_CLIENTCERT = 98,
    CFCURLE_AGAIN = 81,
    CFCURLE_TOO_LARGE = 100,
};

/// The oldest libcurl the transport accepts: 7.68.0, the first with both curl_multi_poll and curl_multi_wakeup.
#define CFCURL_MINIMUM_VERSION 0x074400

/// Loads `library` (for example "libcurl.so.4") and resolves every function the transport uses, once per process;
/// later calls only check that `library` can be opened. Returns 0 on success; otherwise writes a sentence naming
/// what is missing into `error` and returns -1. Thread-safe.
int cfcurl_load(const char *library, char *error, size_t error_size);

/// The loaded library's version and features. Only after a successful `cfcurl_load`.
cfcurl_version_info cfcurl_version(void);

const char *cfcurl_easy_strerror(int code);
const char *cfcurl_multi_strerror(int code);

cfcurl_easy *cfcurl_easy_init(void);
void cfcurl_easy_cleanup(cfcurl_easy *easy);
void cfcurl_easy_reset(cfcurl_easy *easy);
int cfcurl_easy_setopt_long(cfcurl_easy *easy, int option, long value);
int cfcurl_easy_setopt_pointer(cfcurl_easy *easy, int option, const void *value);
int cfcurl_easy_setopt_off_t(cfcurl_easy *easy, int option, int64_t value);
int cfcurl_easy_setopt_callback(cfcurl_easy *easy, int option, cfcurl_data_callback value);
int cfcurl_easy_setopt_seek_callback(cfcurl_easy *easy, int option, cfcurl_seek_callback value);
int cfcurl_easy_getinfo_long(cfcurl_easy *easy, int info, long *value);
/// An information item that is a `curl_off_t` (the `*_T` times, in microseconds, and sizes).
int cfcurl_easy_getinfo_off_t(cfcurl_easy *easy, int info, int64_t *value);
/// An information item that is a string, which libcurl owns: valid until the handle is reset or freed.
int cfcurl_easy_getinfo_string(cfcurl_easy *easy, int info, const char **value);
int cfcurl_easy_setopt_progress_callback(cfcurl_easy *easy, int option, cfcurl_progress_callback value);
/// CURLOPT_OPENSOCKETFUNCTION: the handle's sockets are opened close-on-exec (SOCK_CLOEXEC), so that a child process
/// the program starts while a connection is open does not hold a copy of it. libcurl 7.88 opens them without.
int cfcurl_easy_open_sockets_closed_on_exec(cfcurl_easy *easy);
/// CURLINFO_ACTIVESOCKET: the connected socket of a CURLOPT_CONNECT_ONLY handle, or -1.
int cfcurl_easy_active_socket(cfcurl_easy *easy, int *socket);
/// Blocks until the transfer (for a CURLOPT_CONNECT_ONLY handle: the connection) is done.
int cfcurl_easy_perform(cfcurl_easy *easy);
/// Sends up to `length` bytes on a CURLOPT_CONNECT_ONLY connection without blocking: CFCURLE_AGAIN when none fit.
int cfcurl_easy_send(cfcurl_easy *easy, const void *buffer, size_t length, size_t *sent);
/// Receives up to `length` bytes without blocking: CFCURLE_AGAIN when none are there; CFCURLE_OK with 0 at the end.
int cfcurl_easy_recv(cfcurl_easy *easy, void *buffer, size_t length, size_t *received);
/// curl_easy_pause(easy, CURLPAUSE_RECV): libcurl reads no more of the response until it is unpaused or removed.
/// Only on the thread that drives the handle, for example from inside its write callback.
int cfcurl_easy_pause_receiving(cfcurl_easy *easy);

cfcurl_multi *cfcurl_multi_init(void);
int cfcurl_multi_cleanup(cfcurl_multi *multi);
int cfcurl_multi_setopt_long(cfcurl_multi *multi, int option, long value);
int cfcurl_multi_add_handle(cfcurl_multi *multi, cfcurl_easy *easy);
int cfcurl_multi_remove_handle(cfcurl_multi *multi, cfcurl_easy *easy);
int cfcurl_multi_perform(cfcurl_multi *multi, int *running);
int cfcurl_multi_poll(cfcurl_multi *multi, int timeout_ms);
int cfcurl_multi_wakeup(cfcurl_multi *multi);
/// The next finished transfer: returns 1 and sets `easy` and `result`, or returns 0 when none is left.
int cfcurl_multi_next_done(cfcurl_multi *multi, cfcurl_easy **easy, int *result);

cfcurl_slist *cfcurl_slist_append(cfcurl_slist *list, const char *string);
void cfcurl_slist_free_all(cfcurl_slist *list);

#ifdef __cplusplus
}
#endif

// zlib, for WebSocket compression, through the same module.
#include "CFetchZlib.h"

#endif
