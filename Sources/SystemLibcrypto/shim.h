// The system's libcrypto (OpenSSL 3, `libssl-dev`): the envelope's AES-256-GCM on Linux where it
// is faster than swift-crypto's BoringSSL (one EPYC: swift-crypto sealed at 0.6x openssl's speed;
// one Xeon: 1.9x). `SegmentCipher.fastest` measures which.
#include <openssl/evp.h>
