// MTProto 2.0 message encryption over the caller's buffers (core.telegram.org/mtproto/description): msg_key, the
// key derivation and AES-256-IGE in one call, with no intermediate copies. Every packet of a session goes through
// here twice (once per side), so the hashes use OpenSSL's low-level SHA-256 context: the one-shot SHA256() of
// OpenSSL 3 looks the digest up by name on every call, which cost more than the hashing itself for small packets.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CMTProtoCrypto.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

void mtp_sha1(const uint8_t *data, size_t length, uint8_t digest[20]) {
    SHA_CTX context;
    SHA1_Init(&context);
    SHA1_Update(&context, data, length);
    SHA1_Final(digest, &context);
}

void mtp_sha256(const uint8_t *data, size_t length, uint8_t digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, data, length);
    SHA256_Final(digest, &context);
}

static void mtp_sha256_two(const uint8_t *first, size_t first_length, const uint8_t *second, size_t second_length,
                           uint8_t digest[32]) {
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, first, first_length);
    SHA256_Update(&context, second, second_length);
    SHA256_Final(digest, &context);
}

void mtp_message_key(const uint8_t auth_key[256], int x, const uint8_t *plaintext, size_t length, uint8_t msg_key[16]) {
    uint8_t digest[32];
    mtp_sha256_two(auth_key + 88 + x, 32, plaintext, length, digest);
    memcpy(msg_key, digest + 8, 16);
}

void mtp_message_aes_key_iv(const uint8_t auth_key[256], int x, const uint8_t msg_key[16], uint8_t key[32], uint8_t iv[32]) {
    uint8_t a[32], b[32];
    mtp_sha256_two(msg_key, 16, auth_key + x, 36, a);
    mtp_sha256_two(auth_key + 40 + x, 36, msg_key, 16, b);
    memcpy(key, a, 8);
    memcpy(key + 8, b + 8, 16);
    memcpy(key + 24, a + 24, 8);
    memcpy(iv, b, 8);
    memcpy(iv + 8, a + 8, 16);
    memcpy(iv + 24, b + 24, 8);
    OPENSSL_cleanse(a, sizeof a);
    OPENSSL_cleanse(b, sizeof b);
}

void mtp_encrypt_message(const uint8_t auth_key[256], int x, const uint8_t *plaintext, size_t length, uint8_t msg_key[16],
                         uint8_t *ciphertext) {
    uint8_t key[32], iv[32];
    mtp_message_key(auth_key, x, plaintext, length, msg_key);
    mtp_message_aes_key_iv(auth_key, x, msg_key, key, iv);
    mtp_aes256_ige_encrypt(key, iv, plaintext, ciphertext, length);
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(iv, sizeof iv);
}

int mtp_decrypt_message(const uint8_t auth_key[256], int x, const uint8_t msg_key[16], const uint8_t *ciphertext,
                        size_t length, uint8_t *plaintext) {
    uint8_t key[32], iv[32], expected[16];
    mtp_message_aes_key_iv(auth_key, x, msg_key, key, iv);
    mtp_aes256_ige_decrypt(key, iv, ciphertext, plaintext, length);
    OPENSSL_cleanse(key, sizeof key);
    OPENSSL_cleanse(iv, sizeof iv);
    mtp_message_key(auth_key, x, plaintext, length, expected);
    return CRYPTO_memcmp(expected, msg_key, 16) == 0 ? 1 : 0;
}
