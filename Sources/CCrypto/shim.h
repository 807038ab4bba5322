#ifndef NOTES_CCRYPTO_SHIM_H
#define NOTES_CCRYPTO_SHIM_H

// OpenSSL 3's libcrypto, for checking the signatures of OpenID Connect ID tokens (JWS RS256 and
// ES256) with keys built from a provider's JWKS. Only NotesServer/OIDC imports it (and the tests,
// which make their own keys to sign with).
#include <openssl/evp.h>
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

#endif
