#ifndef NOTES_CCURL_SHIM_H
#define NOTES_CCURL_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

// `curl_easy_setopt` and `curl_easy_getinfo` are C-variadic, which Swift does not import: one
// typed function per kind of argument, each passing exactly that type as libcurl expects.

typedef size_t (*notes_curl_data_callback)(char *buffer, size_t size, size_t count, void *user);
typedef int (*notes_curl_seek_callback)(void *user, curl_off_t offset, int origin);

static inline CURLcode notes_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// A string option: libcurl copies it (since 7.17), so the caller's buffer may go afterwards.
static inline CURLcode notes_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// A header list: libcurl does not copy it, so it must outlive the transfer.
static inline CURLcode notes_curl_set_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_data_callback(CURL *handle, CURLoption option, notes_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode notes_curl_set_seek_callback(CURL *handle, notes_curl_seek_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, value);
}

static inline CURLcode notes_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode notes_curl_multi_set_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// The easy handle and result of a finished transfer's message; NULL handle for any other kind.
static inline CURL *notes_curl_message_done(CURLMsg *message, CURLcode *result) {
    if (message->msg != CURLMSG_DONE) return NULL;
    *result = message->data.result;
    return message->easy_handle;
}

/// libcurl's process-wide set-up with the default flags (a macro expression).
static inline CURLcode notes_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/// What a read callback returns to stop the transfer (a macro, which Swift does not import).
static inline size_t notes_curl_read_abort(void) { return CURL_READFUNC_ABORT; }

/// What a seek callback returns: done, or failed for good.
static inline int notes_curl_seek_ok(void) { return CURL_SEEKFUNC_OK; }
static inline int notes_curl_seek_fail(void) { return CURL_SEEKFUNC_FAIL; }

#endif
