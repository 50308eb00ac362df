// Thin wrappers over OpenSSL 3's libcrypto (EVP ciphers and digests, BIGNUM, RSA key generation and PEM).
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CMTProtoCrypto.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

struct mtp_aes_ctr {
    EVP_CIPHER_CTX *context;
};

mtp_aes_ctr *mtp_aes_ctr_new(const uint8_t key[32], const uint8_t iv[16]) {
    mtp_aes_ctr *ctr = malloc(sizeof(mtp_aes_ctr));
    if (ctr == NULL) return NULL;
    ctr->context = EVP_CIPHER_CTX_new();
    if (ctr->context == NULL || EVP_EncryptInit_ex(ctr->context, EVP_aes_256_ctr(), NULL, key, iv) != 1) {
        EVP_CIPHER_CTX_free(ctr->context);
        free(ctr);
        return NULL;
    }
    return ctr;
}

int mtp_aes_ctr_apply(mtp_aes_ctr *ctr, const uint8_t *input, uint8_t *output, size_t length) {
    while (length > 0) {
        int chunk = length > (1 << 30) ? (1 << 30) : (int)length;
        int written = 0;
        if (EVP_EncryptUpdate(ctr->context, output, &written, input, chunk) != 1 || written != chunk) return 0;
        input += chunk;
        output += chunk;
        length -= (size_t)chunk;
    }
    return 1;
}

void mtp_aes_ctr_free(mtp_aes_ctr *ctr) {
    if (ctr == NULL) return;
    EVP_CIPHER_CTX_free(ctr->context);
    free(ctr);
}

int mtp_aes256_cbc(const uint8_t key[32], const uint8_t iv[16], const uint8_t *input, uint8_t *output, size_t length,
                   int encrypt) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return 0;
    int written = 0;
    int ok = EVP_CipherInit_ex(context, EVP_aes_256_cbc(), NULL, key, iv, encrypt ? 1 : 0) == 1 &&
             EVP_CIPHER_CTX_set_padding(context, 0) == 1 &&
             EVP_CipherUpdate(context, output, &written, input, (int)length) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok ? 1 : 0;
}

int mtp_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t mac[32]) {
    unsigned int written = 0;
    return HMAC(EVP_sha256(), key, (int)key_length, data, length, mac, &written) != NULL && written == 32 ? 1 : 0;
}

int mtp_mod_exp(const uint8_t *base, size_t base_length, const uint8_t *exponent, size_t exponent_length,
                const uint8_t *modulus, size_t modulus_length, uint8_t *output) {
    BN_CTX *context = BN_CTX_new();
    BIGNUM *b = BN_bin2bn(base, (int)base_length, NULL);
    BIGNUM *e = BN_bin2bn(exponent, (int)exponent_length, NULL);
    BIGNUM *m = BN_bin2bn(modulus, (int)modulus_length, NULL);
    BIGNUM *r = BN_new();
    int ok = context != NULL && b != NULL && e != NULL && m != NULL && r != NULL && !BN_is_zero(m) &&
             BN_mod_exp(r, b, e, m, context) == 1 && BN_bn2binpad(r, output, (int)modulus_length) >= 0;
    BN_free(b);
    BN_free(e);
    BN_free(m);
    BN_free(r);
    BN_CTX_free(context);
    return ok ? 1 : 0;
}

int mtp_rsa_generate(int bits, uint8_t *n, uint8_t *e, uint8_t *d) {
    EVP_PKEY *key = EVP_RSA_gen((unsigned int)bits);
    if (key == NULL) return 0;
    BIGNUM *bn_n = NULL, *bn_e = NULL, *bn_d = NULL;
    int ok = EVP_PKEY_get_bn_param(key, "n", &bn_n) == 1 && EVP_PKEY_get_bn_param(key, "e", &bn_e) == 1 &&
             EVP_PKEY_get_bn_param(key, "d", &bn_d) == 1 && BN_bn2binpad(bn_n, n, bits / 8) >= 0 &&
             BN_bn2binpad(bn_e, e, bits / 8) >= 0 && BN_bn2binpad(bn_d, d, bits / 8) >= 0;
    BN_free(bn_n);
    BN_free(bn_e);
    BN_clear_free(bn_d);
    EVP_PKEY_free(key);
    return ok ? 1 : 0;
}

size_t mtp_rsa_public_pem(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length, char *pem,
                          size_t capacity) {
    RSA *rsa = RSA_new();
    BIGNUM *bn_n = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *bn_e = BN_bin2bn(e, (int)e_length, NULL);
    BIO *bio = BIO_new(BIO_s_mem());
    size_t written = 0;
    if (rsa != NULL && bn_n != NULL && bn_e != NULL && bio != NULL && RSA_set0_key(rsa, bn_n, bn_e, NULL) == 1) {
        bn_n = NULL;  // owned by rsa now
        bn_e = NULL;
        if (PEM_write_bio_RSAPublicKey(bio, rsa) == 1) {
            char *data = NULL;
            long length = BIO_get_mem_data(bio, &data);
            if (length > 0 && (size_t)length < capacity) {
                memcpy(pem, data, (size_t)length);
                pem[length] = '\0';
                written = (size_t)length;
            }
        }
    }
    BN_free(bn_n);
    BN_free(bn_e);
    RSA_free(rsa);
    BIO_free(bio);
    return written;
}

int mtp_random_bytes(uint8_t *output, size_t length) {
    if (length > (size_t)INT32_MAX) return 0;
    return RAND_bytes(output, (int)length) == 1 ? 1 : 0;
}

/* OpenSSL frees its locks and tables in an atexit handler. A process that exits while another thread is still
 * decrypting (an event loop handling a late packet as a command returns) then crashes in pthread_rwlock_wrlock on a
 * destroyed lock, as one CI run showed. The OS reclaims everything at exit anyway, so the cleanup is turned off
 * before OpenSSL is first used. */
__attribute__((constructor)) static void mtproto_crypto_no_atexit_cleanup(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

mtp_digest *mtp_digest_new(int kind) {
    const EVP_MD *type = kind == MTP_DIGEST_MD5 ? EVP_md5() : EVP_sha256();
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return NULL;
    if (EVP_DigestInit_ex(context, type, NULL) != 1) {
        EVP_MD_CTX_free(context);
        return NULL;
    }
    return (mtp_digest *)context;
}

int mtp_digest_update(mtp_digest *digest, const uint8_t *data, size_t length) {
    return EVP_DigestUpdate((EVP_MD_CTX *)digest, data, length);
}

int mtp_digest_final(mtp_digest *digest, uint8_t *output, unsigned int *length) {
    return EVP_DigestFinal_ex((EVP_MD_CTX *)digest, output, length);
}

void mtp_digest_free(mtp_digest *digest) { EVP_MD_CTX_free((EVP_MD_CTX *)digest); }
