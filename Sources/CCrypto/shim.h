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

#endif
