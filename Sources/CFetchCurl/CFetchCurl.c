// Loads libcurl at run time and calls it through typed wrappers (see include/CFetchCurl.h).
#include "CFetchCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

// The leading fields of libcurl's `curl_version_info_data`, the same in every age of the struct.
struct version_data_prefix {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
};

// libcurl's `CURLMsg`.
struct multi_message {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

enum { MESSAGE_DONE = 1, GLOBAL_ALL = 3, VERSION_AGE = 3 };

// The functions, resolved once and never changed afterwards.
static struct {
    int (*global_init)(long flags);
    struct version_data_prefix *(*version_info)(int age);
    const char *(*easy_strerror)(int code);
    const char *(*multi_strerror)(int code);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *easy);
    void (*easy_reset)(void *easy);
    int (*easy_setopt)(void *easy, int option, ...);
    int (*easy_getinfo)(void *easy, int info, ...);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *multi);
    int (*multi_setopt)(void *multi, int option, ...);
    int (*multi_add_handle)(void *multi, void *easy);
    int (*multi_remove_handle)(void *multi, void *easy);
    int (*multi_perform)(void *multi, int *running);
    int (*multi_poll)(void *multi, void *extra_fds, unsigned int extra_count, int timeout_ms, int *ready);
    int (*multi_wakeup)(void *multi);
    struct multi_message *(*multi_info_read)(void *multi, int *left);
    void *(*slist_append)(void *list, const char *string);
    void (*slist_free_all)(void *list);
    int (*easy_perform)(void *easy);
    int (*easy_send)(void *easy, const void *buffer, size_t length, size_t *sent);
    int (*easy_recv)(void *easy, void *buffer, size_t length, size_t *received);
    int (*easy_pause)(void *easy, int bitmask);
} curl;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int loaded = 0;

static int resolve(void *library, const char *library_name, const char *name, void **slot, char *error,
                   size_t error_size) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(error, error_size, "%s has no function %s: it is older than libcurl 7.68.0, which Fetch's curl "
                 "transport needs", library_name, name);
        return -1;
    }
    return 0;
}

int cfcurl_load(const char *library_name, char *error, size_t error_size) {
    pthread_mutex_lock(&load_lock);
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "cannot load %s: %s", library_name, reason ? reason : "unknown dlopen error");
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    if (loaded) {
        // The first library loaded serves every transport; this one only had to be loadable.
        dlclose(library);
        pthread_mutex_unlock(&load_lock);
        return 0;
    }
#define RESOLVE(field, symbol)                                                                                   \
    if (resolve(library, library_name, symbol, (void **)&curl.field, error, error_size) != 0) {                  \
        dlclose(library);                                                                                        \
        pthread_mutex_unlock(&load_lock);                                                                        \
        return -1;                                                                                               \
    }
    RESOLVE(global_init, "curl_global_init")
    RESOLVE(version_info, "curl_version_info")
    RESOLVE(easy_strerror, "curl_easy_strerror")
    RESOLVE(multi_strerror, "curl_multi_strerror")
    RESOLVE(easy_init, "curl_easy_init")
    RESOLVE(easy_cleanup, "curl_easy_cleanup")
    RESOLVE(easy_reset, "curl_easy_reset")
    RESOLVE(easy_setopt, "curl_easy_setopt")
    RESOLVE(easy_getinfo, "curl_easy_getinfo")
    RESOLVE(multi_init, "curl_multi_init")
    RESOLVE(multi_cleanup, "curl_multi_cleanup")
    RESOLVE(multi_setopt, "curl_multi_setopt")
    RESOLVE(multi_add_handle, "curl_multi_add_handle")
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle")
    RESOLVE(multi_perform, "curl_multi_perform")
    RESOLVE(multi_info_read, "curl_multi_info_read")
    RESOLVE(slist_append, "curl_slist_append")
    RESOLVE(slist_free_all, "curl_slist_free_all")
    RESOLVE(multi_poll, "curl_multi_poll")
    RESOLVE(multi_wakeup, "curl_multi_wakeup")
    RESOLVE(easy_perform, "curl_easy_perform")
    RESOLVE(easy_send, "curl_easy_send")
    RESOLVE(easy_recv, "curl_easy_recv")
    RESOLVE(easy_pause, "curl_easy_pause")
#undef RESOLVE
    struct version_data_prefix *version = curl.version_info(VERSION_AGE);
    if (version == NULL || version->version_num < CFCURL_MINIMUM_VERSION) {
        snprintf(error, error_size, "%s is libcurl %s; Fetch's curl transport needs 7.68.0 or later", library_name,
                 version && version->version ? version->version : "of an unknown version");
        dlclose(library);
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    int status = curl.global_init(GLOBAL_ALL);
    if (status != 0) {
        snprintf(error, error_size, "curl_global_init of %s failed with CURLcode %d", library_name, status);
        dlclose(library);
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    loaded = 1;  // the library stays loaded for the life of the process
    pthread_mutex_unlock(&load_lock);
    return 0;
}

cfcurl_version_info cfcurl_version(void) {
    struct version_data_prefix *data = curl.version_info(VERSION_AGE);
    cfcurl_version_info info = {data->version_num, data->version, data->features, data->ssl_version};
    return info;
}

// Callable before any transport loaded libcurl (a test words an error code with no transfer behind it).
const char *cfcurl_easy_strerror(int code) {
    return curl.easy_strerror ? curl.easy_strerror(code) : "libcurl is not loaded, so it cannot name this code";
}
const char *cfcurl_multi_strerror(int code) {
    return curl.multi_strerror ? curl.multi_strerror(code) : "libcurl is not loaded, so it cannot name this code";
}

cfcurl_easy *cfcurl_easy_init(void) { return (cfcurl_easy *)curl.easy_init(); }
void cfcurl_easy_cleanup(cfcurl_easy *easy) { curl.easy_cleanup(easy); }
void cfcurl_easy_reset(cfcurl_easy *easy) { curl.easy_reset(easy); }

int cfcurl_easy_setopt_long(cfcurl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}

int cfcurl_easy_setopt_pointer(cfcurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}

int cfcurl_easy_setopt_off_t(cfcurl_easy *easy, int option, int64_t value) {
    return curl.easy_setopt(easy, option, value);
}

int cfcurl_easy_setopt_callback(cfcurl_easy *easy, int option, cfcurl_data_callback value) {
    return curl.easy_setopt(easy, option, value);
}

int cfcurl_easy_setopt_seek_callback(cfcurl_easy *easy, int option, cfcurl_seek_callback value) {
    return curl.easy_setopt(easy, option, value);
}

int cfcurl_easy_getinfo_long(cfcurl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

int cfcurl_easy_getinfo_off_t(cfcurl_easy *easy, int info, int64_t *value) {
    return curl.easy_getinfo(easy, info, value);
}

int cfcurl_easy_getinfo_string(cfcurl_easy *easy, int info, const char **value) {
    return curl.easy_getinfo(easy, info, value);
}

int cfcurl_easy_setopt_progress_callback(cfcurl_easy *easy, int option, cfcurl_progress_callback value) {
    return curl.easy_setopt(easy, option, value);
}

// libcurl's `struct curl_sockaddr`, what it asks a socket for.
struct socket_request {
    int family;
    int socktype;
    int protocol;
    unsigned int addrlen;
    struct sockaddr addr;
};

// A CURLOPT_OPENSOCKETFUNCTION: the socket libcurl would open, close-on-exec from the start (no window in which a
// child started by another thread inherits it). -1, CURL_SOCKET_BAD, when it cannot be opened.
static int open_socket_closed_on_exec(void *context, int purpose, struct socket_request *request) {
    (void)context;
    (void)purpose;
    return socket(request->family, request->socktype | SOCK_CLOEXEC, request->protocol);
}

int cfcurl_easy_open_sockets_closed_on_exec(cfcurl_easy *easy) {
    return curl.easy_setopt(easy, CFCURLOPT_OPENSOCKETFUNCTION, open_socket_closed_on_exec);
}

int cfcurl_easy_active_socket(cfcurl_easy *easy, int *socket) {
    // curl_socket_t is an int on every platform but Windows.
    return curl.easy_getinfo(easy, CFCURLINFO_ACTIVESOCKET, socket);
}

int cfcurl_easy_perform(cfcurl_easy *easy) { return curl.easy_perform(easy); }

int cfcurl_easy_send(cfcurl_easy *easy, const void *buffer, size_t length, size_t *sent) {
    return curl.easy_send(easy, buffer, length, sent);
}

int cfcurl_easy_recv(cfcurl_easy *easy, void *buffer, size_t length, size_t *received) {
    return curl.easy_recv(easy, buffer, length, received);
}

cfcurl_multi *cfcurl_multi_init(void) { return (cfcurl_multi *)curl.multi_init(); }
int cfcurl_multi_cleanup(cfcurl_multi *multi) { return curl.multi_cleanup(multi); }

int cfcurl_multi_setopt_long(cfcurl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}

int cfcurl_multi_add_handle(cfcurl_multi *multi, cfcurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int cfcurl_multi_remove_handle(cfcurl_multi *multi, cfcurl_easy *easy) {
    return curl.multi_remove_handle(multi, easy);
}
int cfcurl_multi_perform(cfcurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }
int cfcurl_multi_poll(cfcurl_multi *multi, int timeout_ms) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL);
}
int cfcurl_multi_wakeup(cfcurl_multi *multi) { return curl.multi_wakeup(multi); }

int cfcurl_easy_pause_receiving(cfcurl_easy *easy) { return curl.easy_pause(easy, 1 /* CURLPAUSE_RECV */); }

int cfcurl_multi_next_done(cfcurl_multi *multi, cfcurl_easy **easy, int *result) {
    int left = 0;
    struct multi_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->msg == MESSAGE_DONE) {
            *easy = (cfcurl_easy *)message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

cfcurl_slist *cfcurl_slist_append(cfcurl_slist *list, const char *string) {
    return (cfcurl_slist *)curl.slist_append(list, string);
}
void cfcurl_slist_free_all(cfcurl_slist *list) { curl.slist_free_all(list); }
