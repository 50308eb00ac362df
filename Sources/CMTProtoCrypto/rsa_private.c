// The server's RSA private operation through OpenSSL's EVP with the key's CRT parameters: blinded (OpenSSL blinds
// every private RSA operation by default) and in constant time, instead of a bare BN_mod_exp with d, whose timing
// depends on the ciphertext. Keys stored as (n, e, d) alone have their factors recovered once, when loaded, with the
// standard method (Boneh; NIST SP 800-56B, appendix C).

#include "CMTProtoCrypto.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

/// p and q of n from e and d: k = d·e − 1 = 2^t·r (r odd); for g = 2, 3, …: y = g^r mod n, square until y² ≡ 1 with
/// y ≢ ±1, then p = gcd(y − 1, n). Succeeds for at least half of all g; 100 tries cannot all fail for a valid key.
static int recover_factors(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d, BIGNUM *p, BIGNUM *q, BN_CTX *ctx) {
    int ok = 0;
    BN_CTX_start(ctx);
    BIGNUM *k = BN_CTX_get(ctx), *r = BN_CTX_get(ctx), *g = BN_CTX_get(ctx), *y = BN_CTX_get(ctx);
    BIGNUM *x = BN_CTX_get(ctx), *n_minus_1 = BN_CTX_get(ctx), *rem = BN_CTX_get(ctx);
    if (n_minus_1 == NULL || !BN_mul(k, d, e, ctx) || !BN_sub_word(k, 1) || BN_is_zero(k)) goto done;
    if (BN_copy(n_minus_1, n) == NULL || !BN_sub_word(n_minus_1, 1) || BN_copy(r, k) == NULL) goto done;
    int t = 0;
    while (!BN_is_odd(r)) {
        if (!BN_rshift1(r, r)) goto done;
        t++;
    }
    for (BN_ULONG base = 2; base < 102 && !ok; base++) {
        if (!BN_set_word(g, base) || !BN_mod_exp(y, g, r, n, ctx)) goto done;
        if (BN_is_one(y) || BN_cmp(y, n_minus_1) == 0) continue;
        for (int i = 0; i < t; i++) {
            if (!BN_mod_sqr(x, y, n, ctx)) goto done;
            if (BN_is_one(x)) {
                if (!BN_sub_word(y, 1) || !BN_gcd(p, y, n, ctx) || !BN_div(q, rem, n, p, ctx)) goto done;
                ok = BN_is_zero(rem) && !BN_is_one(p) && !BN_is_one(q);
                break;
            }
            if (BN_cmp(x, n_minus_1) == 0) break;
            if (BN_copy(y, x) == NULL) goto done;
        }
    }
done:
    BN_CTX_end(ctx);
    return ok;
}

void *mtp_rsa_private_key_new(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length,
                              const uint8_t *d, size_t d_length) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = NULL;
    OSSL_PARAM *params = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    BN_CTX *bn = BN_CTX_new();
    BIGNUM *bn_n = BN_bin2bn(n, (int)n_length, NULL), *bn_e = BN_bin2bn(e, (int)e_length, NULL);
    BIGNUM *bn_d = BN_bin2bn(d, (int)d_length, NULL);
    BIGNUM *p = BN_new(), *q = BN_new(), *dp = BN_new(), *dq = BN_new(), *qinv = BN_new(), *one_less = BN_new();
    if (builder == NULL || bn == NULL || bn_n == NULL || bn_e == NULL || bn_d == NULL || p == NULL || q == NULL || dp == NULL ||
        dq == NULL || qinv == NULL || one_less == NULL)
        goto done;
    if (!recover_factors(bn_n, bn_e, bn_d, p, q, bn)) goto done;
    if (BN_copy(one_less, p) == NULL || !BN_sub_word(one_less, 1) || !BN_mod(dp, bn_d, one_less, bn)) goto done;
    if (BN_copy(one_less, q) == NULL || !BN_sub_word(one_less, 1) || !BN_mod(dq, bn_d, one_less, bn)) goto done;
    if (BN_mod_inverse(qinv, q, p, bn) == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, bn_n) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, bn_e) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_D, bn_d) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_FACTOR1, p) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_FACTOR2, q) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_EXPONENT1, dp) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_EXPONENT2, dq) ||
        !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, qinv))
        goto done;
    params = OSSL_PARAM_BLD_to_param(builder);
    context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
    if (params == NULL || context == NULL || EVP_PKEY_fromdata_init(context) != 1 ||
        EVP_PKEY_fromdata(context, &key, EVP_PKEY_KEYPAIR, params) != 1)
        key = NULL;
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EVP_PKEY_CTX_free(context);
    BN_free(bn_n);
    BN_free(bn_e);
    BN_clear_free(bn_d);
    BN_clear_free(p);
    BN_clear_free(q);
    BN_clear_free(dp);
    BN_clear_free(dq);
    BN_clear_free(qinv);
    BN_clear_free(one_less);
    BN_CTX_free(bn);
    return key;
}

void mtp_rsa_private_key_free(void *key) {
    EVP_PKEY_free((EVP_PKEY *)key);
}

int mtp_rsa_private_raw(void *key, const uint8_t *input, size_t length, uint8_t *output) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_pkey(NULL, (EVP_PKEY *)key, NULL);
    size_t written = length;
    int ok = context != NULL && EVP_PKEY_decrypt_init(context) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) == 1 &&
             EVP_PKEY_decrypt(context, output, &written, input, length) == 1 && written == length;
    EVP_PKEY_CTX_free(context);
    return ok ? 1 : 0;
}
