// zlib (Debian: zlib1g-dev): CRC-32 for TL constructor ids and TCP-full frames, deflate/inflate for gzip_packed.
#include <zlib.h>
