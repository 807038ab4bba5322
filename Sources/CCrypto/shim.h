#ifndef NOTES_CCRYPTO_SHIM_H
#define NOTES_CCRYPTO_SHIM_H

// OpenSSL 3's libcrypto: SHA-256 for content hashes (NotesCore: OpenSSL uses the CPU's SHA
// instructions, about six times libsodium's portable code on large attachments), and the
// signatures of OpenID Connect ID tokens (JWS RS256 and ES256) with keys built from a
// provider's JWKS (NotesCore's SignatureKey, and the tests, which make their own keys to sign with);
// HMAC-SHA256 for the signatures (AWS SigV4) of requests to an S3-compatible content store.
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

/// `EVP_PKEY_PUBLIC_KEY`, a macro expression Swift does not import: build a key from public parts.
static inline int notes_evp_pkey_public_key_selection(void) { return EVP_PKEY_PUBLIC_KEY; }

/// Parameter names with static storage: an `OSSL_PARAM_BLD` keeps the name's pointer until
/// `OSSL_PARAM_BLD_to_param`, so a temporary C string made from a Swift `String` would dangle.
static inline const char *notes_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *notes_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *notes_param_group_name(void) { return OSSL_PKEY_PARAM_GROUP_NAME; }
static inline const char *notes_param_public_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
static inline const char *notes_curve_p256(void) { return SN_X9_62_prime256v1; }

/// SHA-256 in pieces over a plain struct (`SHA256_CTX`), so a hasher is a copyable value. OpenSSL 3
/// marks these calls deprecated in favour of EVP's heap-allocated contexts; they remain supported
/// and run the same accelerated code, and only these wrappers call them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void notes_sha256_init(SHA256_CTX *context) { SHA256_Init(context); }
static inline void notes_sha256_update(SHA256_CTX *context, const void *bytes, size_t count) {
    SHA256_Update(context, bytes, count);
}
static inline void notes_sha256_final(SHA256_CTX *context, unsigned char *digest) { SHA256_Final(digest, context); }
#pragma GCC diagnostic pop

#endif
