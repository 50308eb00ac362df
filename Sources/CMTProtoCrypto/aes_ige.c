// AES-256-IGE for MTProto 2.0. IGE chains every block on the previous plaintext *and* ciphertext, so it cannot be
// parallelized; speed comes from doing each block in AES-NI registers with the key schedule expanded once.
// Without AES-NI (other CPUs) it falls back to OpenSSL's AES_ige_encrypt, which is correct but ~8x slower.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CMTProtoCrypto.h"

#include <openssl/aes.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define MTP_HAVE_AESNI 1
#include <immintrin.h>

#define MTP_AESNI __attribute__((target("aes,sse2")))

// AES-256 key expansion with AESKEYGENASSIST (Intel AES-NI white paper, "AES-256 key expansion").
MTP_AESNI static inline __m128i mtp_expand_even(__m128i previous, __m128i assist) {
    assist = _mm_shuffle_epi32(assist, 0xff);
    __m128i shifted = _mm_slli_si128(previous, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    previous = _mm_xor_si128(previous, shifted);
    return _mm_xor_si128(previous, assist);
}

MTP_AESNI static inline __m128i mtp_expand_odd(__m128i even, __m128i previous) {
    __m128i assist = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(even, 0x00), 0xaa);
    __m128i shifted = _mm_slli_si128(previous, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    previous = _mm_xor_si128(previous, shifted);
    shifted = _mm_slli_si128(shifted, 4);
    previous = _mm_xor_si128(previous, shifted);
    return _mm_xor_si128(previous, assist);
}

#define MTP_EXPAND_ROUND(index, rcon)                                                      \
    do {                                                                                   \
        keys[index] = mtp_expand_even(keys[index - 2], _mm_aeskeygenassist_si128(keys[index - 1], rcon)); \
        if (index + 1 < 15) keys[index + 1] = mtp_expand_odd(keys[index], keys[index - 1]); \
    } while (0)

MTP_AESNI static void mtp_expand_key(const uint8_t key[32], __m128i keys[15]) {
    keys[0] = _mm_loadu_si128((const __m128i *)key);
    keys[1] = _mm_loadu_si128((const __m128i *)(key + 16));
    MTP_EXPAND_ROUND(2, 0x01);
    MTP_EXPAND_ROUND(4, 0x02);
    MTP_EXPAND_ROUND(6, 0x04);
    MTP_EXPAND_ROUND(8, 0x08);
    MTP_EXPAND_ROUND(10, 0x10);
    MTP_EXPAND_ROUND(12, 0x20);
    MTP_EXPAND_ROUND(14, 0x40);
}

MTP_AESNI static void mtp_ige_encrypt_aesni(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input,
                                            uint8_t *output, size_t length) {
    __m128i keys[15];
    mtp_expand_key(key, keys);
    __m128i previous_cipher = _mm_loadu_si128((const __m128i *)iv);
    __m128i previous_plain = _mm_loadu_si128((const __m128i *)(iv + 16));
    for (size_t offset = 0; offset + 16 <= length; offset += 16) {
        __m128i plain = _mm_loadu_si128((const __m128i *)(input + offset));
        __m128i state = _mm_xor_si128(_mm_xor_si128(plain, previous_cipher), keys[0]);
        for (int round = 1; round < 14; round++) state = _mm_aesenc_si128(state, keys[round]);
        state = _mm_aesenclast_si128(state, keys[14]);
        __m128i cipher = _mm_xor_si128(state, previous_plain);
        _mm_storeu_si128((__m128i *)(output + offset), cipher);
        previous_cipher = cipher;
        previous_plain = plain;
    }
}

MTP_AESNI static void mtp_ige_decrypt_aesni(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input,
                                            uint8_t *output, size_t length) {
    __m128i keys[15];
    __m128i inverse[15];
    mtp_expand_key(key, keys);
    inverse[0] = keys[14];
    for (int round = 1; round < 14; round++) inverse[round] = _mm_aesimc_si128(keys[14 - round]);
    inverse[14] = keys[0];
    __m128i previous_cipher = _mm_loadu_si128((const __m128i *)iv);
    __m128i previous_plain = _mm_loadu_si128((const __m128i *)(iv + 16));
    for (size_t offset = 0; offset + 16 <= length; offset += 16) {
        __m128i cipher = _mm_loadu_si128((const __m128i *)(input + offset));
        __m128i state = _mm_xor_si128(_mm_xor_si128(cipher, previous_plain), inverse[0]);
        for (int round = 1; round < 14; round++) state = _mm_aesdec_si128(state, inverse[round]);
        state = _mm_aesdeclast_si128(state, inverse[14]);
        __m128i plain = _mm_xor_si128(state, previous_cipher);
        _mm_storeu_si128((__m128i *)(output + offset), plain);
        previous_cipher = cipher;
        previous_plain = plain;
    }
}
#endif

int mtp_aes_ige_uses_hardware(void) {
#ifdef MTP_HAVE_AESNI
    return __builtin_cpu_supports("aes") ? 1 : 0;
#else
    return 0;
#endif
}

void mtp_aes256_ige_portable(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output,
                             size_t length, int encrypt) {
    AES_KEY schedule;
    unsigned char chain[32];
    memcpy(chain, iv, 32);
    if (encrypt) {
        AES_set_encrypt_key(key, 256, &schedule);
    } else {
        AES_set_decrypt_key(key, 256, &schedule);
    }
    AES_ige_encrypt(input, output, length - length % 16, &schedule, chain, encrypt ? AES_ENCRYPT : AES_DECRYPT);
}

void mtp_aes256_ige_encrypt(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output,
                            size_t length) {
#ifdef MTP_HAVE_AESNI
    if (mtp_aes_ige_uses_hardware()) {
        mtp_ige_encrypt_aesni(key, iv, input, output, length);
        return;
    }
#endif
    mtp_aes256_ige_portable(key, iv, input, output, length, 1);
}

void mtp_aes256_ige_decrypt(const uint8_t key[32], const uint8_t iv[32], const uint8_t *input, uint8_t *output,
                            size_t length) {
#ifdef MTP_HAVE_AESNI
    if (mtp_aes_ige_uses_hardware()) {
        mtp_ige_decrypt_aesni(key, iv, input, output, length);
        return;
    }
#endif
    mtp_aes256_ige_portable(key, iv, input, output, length, 0);
}
