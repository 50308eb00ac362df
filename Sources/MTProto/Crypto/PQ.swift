/// The handshake's proof of work (core.telegram.org/mtproto/auth_key): the server sends pq, a product of two
/// distinct primes below 2^32, and the client factors it.
public enum PQ {
    /// Splits pq into (p, q) with p < q, both prime; nil if pq is not such a product.
    public static func factorize(_ pq: UInt64) -> (p: UInt64, q: UInt64)? {
        // A prime pq (a hostile or broken server) has nothing to find: refuse it before the rho search spins.
        guard pq > 3, !isPrime(pq) else { return nil }
        let factor = pq % 2 == 0 ? 2 : pollardBrent(pq)
        guard factor > 1, factor < pq else { return nil }
        let other = pq / factor
        let (p, q) = factor < other ? (factor, other) : (other, factor)
        guard p != q, isPrime(p), isPrime(q) else { return nil }
        return (p, q)
    }

    /// Two distinct random primes in [2^30, 2^31) and their product (p < q). Keeping pq below 2^63 matters:
    /// Telethon (and other clients) read pq, p and q as *signed* big-endian integers, as Telegram's values allow.
    public static func generate<R: RandomNumberGenerator>(using rng: inout R) -> (pq: UInt64, p: UInt64, q: UInt64) {
        func randomPrime() -> UInt64 {
            while true {
                let candidate = UInt64.random(in: (1 << 30)..<(1 << 31), using: &rng) | 1
                if isPrime(candidate) { return candidate }
            }
        }
        var p = randomPrime()
        var q = randomPrime()
        while p == q { q = randomPrime() }
        if p > q { swap(&p, &q) }
        return (p * q, p, q)
    }

    /// Deterministic Miller–Rabin for 64-bit values (these bases decide every n < 2^64).
    public static func isPrime(_ n: UInt64) -> Bool {
        if n < 2 { return false }
        let bases: [UInt64] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
        for base in bases {
            if n == base { return true }
            if n % base == 0 { return false }
        }
        var d = n - 1
        var shift = 0
        while d % 2 == 0 { d /= 2; shift += 1 }
        outer: for base in bases {
            var x = powMod(base, d, n)
            if x == 1 || x == n - 1 { continue }
            for _ in 1..<max(shift, 1) {
                x = mulMod(x, x, n)
                if x == n - 1 { continue outer }
            }
            return false
        }
        return true
    }

    static func mulMod(_ a: UInt64, _ b: UInt64, _ m: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return m.dividingFullWidth((high: product.high, low: product.low)).remainder
    }

    static func powMod(_ base: UInt64, _ exponent: UInt64, _ m: UInt64) -> UInt64 {
        var result: UInt64 = 1
        var base = base % m
        var exponent = exponent
        while exponent > 0 {
            if exponent & 1 == 1 { result = mulMod(result, base, m) }
            base = mulMod(base, base, m)
            exponent >>= 1
        }
        return result
    }

    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// Brent's variant of Pollard's rho; deterministic (fixed seeds), tries several constants.
    static func pollardBrent(_ n: UInt64) -> UInt64 {
        for c in UInt64(1)...20 {
            var y: UInt64 = 2
            var r: UInt64 = 1
            var q: UInt64 = 1
            var g: UInt64 = 1
            var x: UInt64 = 0
            var ys: UInt64 = 0
            let m: UInt64 = 128
            repeat {
                x = y
                for _ in 0..<r { y = (mulMod(y, y, n) &+ c) % n }
                var k: UInt64 = 0
                repeat {
                    ys = y
                    for _ in 0..<min(m, r - k) {
                        y = (mulMod(y, y, n) &+ c) % n
                        q = mulMod(q, x > y ? x - y : y - x, n)
                    }
                    g = gcd(q, n)
                    k += m
                } while k < r && g == 1
                r *= 2
            } while g == 1 && r < (1 << 22)
            if g == n {
                repeat {
                    ys = (mulMod(ys, ys, n) &+ c) % n
                    g = gcd(x > ys ? x - ys : ys - x, n)
                } while g == 1
            }
            if g != 1 && g != n { return g }
        }
        return 1
    }
}
