// C primitives for MTProto 2.0 (core.telegram.org/mtproto/description): AES-256-IGE with AES-NI when the CPU has
// it, and thin wrappers over OpenSSL's libcrypto for AES-CTR/CBC, SHA-1/256, big-number arithmetic and RSA keys.
// Swift never calls OpenSSL directly; everything goes through these functions so the OpenSSL surface stays small.
#ifndef CMTPROTOCRYPTO_H
#define CMTPROTOCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// 1 when AES-256-IGE runs on AES-NI, 0 when it uses OpenSSL's portable AES_ige_encrypt.
int mtp_aes_ige_uses_hardware(void);

/// AES-256-IGE over `length` bytes (a multiple of 16). `iv` is 32 bytes: iv1 (previous ciphertext) then
/// iv2 (previous plaintext), as MTProto defines it. `input` and `output` may be the same buffer.
void mtp_aes256_ige_encrypt(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output, size_t length);
void mtp_aes256_ige_decrypt(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output, size_t length);

/// OpenSSL's portable AES_ige_encrypt (no AES-NI): the fallback, exposed so tests can compare both paths.
void mtp_aes256_ige_portable(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output,
                             size_t length, int encrypt);

/// A streaming AES-256-CTR context (obfuscated2 transport). NULL on allocation failure.
typedef struct mtp_aes_ctr mtp_aes_ctr;
mtp_aes_ctr *mtp_aes_ctr_new(const uint8_t key[32], const uint8_t iv[16]);
/// XORs the next `length` bytes of key stream into `input`, writing `output` (may alias). Returns 1 on success.
int mtp_aes_ctr_apply(mtp_aes_ctr *context, const uint8_t *input, uint8_t *output, size_t length);
void mtp_aes_ctr_free(mtp_aes_ctr *context);

/// OpenSSL's AES-256-CBC (EVP, no padding), `encrypt` nonzero to encrypt: the reference the IGE benchmark compares
/// against, and the cipher of the signed config blob of endpoint discovery.
int mtp_aes256_cbc(const uint8_t key[32], const uint8_t iv[16], const uint8_t *input, uint8_t *output, size_t length,
                   int encrypt);

/// HMAC-SHA256 (fake-TLS MTProxy hello digests).
int mtp_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length, uint8_t mac[32]);

void mtp_sha1(const uint8_t *data, size_t length, uint8_t digest[20]);
void mtp_sha256(const uint8_t *data, size_t length, uint8_t digest[32]);

/// MTProto 2.0 msg_key: the middle 128 bits of SHA256(auth_key[88+x ..< 120+x] ‖ plaintext), x = 0 from the client
/// and 8 from the server.
void mtp_message_key(const uint8_t auth_key[256], int x, const uint8_t *plaintext, size_t length, uint8_t msg_key[16]);
/// MTProto 2.0 aes_key and aes_iv for a msg_key.
void mtp_message_aes_key_iv(const uint8_t auth_key[256], int x, const uint8_t msg_key[16], uint8_t key[32], uint8_t iv[32]);
/// Computes msg_key of `plaintext` (padded, `length` a multiple of 16) and encrypts it into `ciphertext` (`length`
/// bytes; may be another part of the caller's packet buffer).
void mtp_encrypt_message(const uint8_t auth_key[256], int x, const uint8_t *plaintext, size_t length, uint8_t msg_key[16],
                         uint8_t *ciphertext);
/// Decrypts `length` bytes (a multiple of 16) with the packet's msg_key into `plaintext`; returns 1 when msg_key
/// recomputed over the plaintext matches (compared in constant time), 0 otherwise.
int mtp_decrypt_message(const uint8_t auth_key[256], int x, const uint8_t msg_key[16], const uint8_t *ciphertext,
                        size_t length, uint8_t *plaintext);

/// base^exponent mod modulus on big-endian unsigned integers; `output` receives `modulus_length` bytes
/// (left-padded with zeros). Returns 1 on success, 0 on failure (zero modulus, allocation failure).
int mtp_mod_exp(const uint8_t *base, size_t base_length, const uint8_t *exponent, size_t exponent_length,
                const uint8_t *modulus, size_t modulus_length, uint8_t *output);

/// Generates an RSA key of `bits` bits with e = 65537. Writes big-endian n, e and d, each left-padded to
/// `bits / 8` bytes. Returns 1 on success.
int mtp_rsa_generate(int bits, uint8_t *n, uint8_t *e, uint8_t *d);

// The RSA private operation, blinded and with CRT (rsa_private.c): a key from (n, e, d) (its factors recovered; NULL
// when they cannot be), the raw operation on a block of the modulus' length (input < n), and the key's release.
void *mtp_rsa_private_key_new(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length,
                              const uint8_t *d, size_t d_length);
void mtp_rsa_private_key_free(void *key);
int mtp_rsa_private_raw(void *key, const uint8_t *input, size_t length, uint8_t *output);

/// Writes the PKCS#1 PEM ("BEGIN RSA PUBLIC KEY") of (n, e) into `pem` (NUL-terminated).
/// Returns the length written, or 0 if `capacity` is too small or encoding failed.
size_t mtp_rsa_public_pem(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length, char *pem, size_t capacity);

/// `length` bytes from OpenSSL's CSPRNG (a DRBG in user space, seeded by the kernel): one call instead of one
/// getrandom(2) system call per 8 bytes. Returns 1 on success, 0 if the generator is not seeded.
int mtp_random_bytes(uint8_t *output, size_t length);

/// A running digest over data given in pieces (a file's parts, hashed as they are read): SHA-256 (content addresses)
/// or MD5 (the `md5_checksum` clients send with a small upload, core.telegram.org/constructor/inputFile). NULL on
/// allocation failure; `mtp_digest_final` writes 32 or 16 bytes and returns 1.
typedef struct mtp_digest mtp_digest;
enum { MTP_DIGEST_SHA256 = 0, MTP_DIGEST_MD5 = 1 };
mtp_digest *mtp_digest_new(int kind);
int mtp_digest_update(mtp_digest *digest, const uint8_t *data, size_t length);
int mtp_digest_final(mtp_digest *digest, uint8_t *output, unsigned int *length);
void mtp_digest_free(mtp_digest *digest);

#endif
