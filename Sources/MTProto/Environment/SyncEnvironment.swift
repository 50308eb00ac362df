import Foundation
import Synchronization

/// The time, the waiting and the randomness of one side of the system (a client's account and network, or a server),
/// passed in.
///
/// Nothing in `MTProto`, `MTProtoNIO`, `SyncEngine` or `SyncServer` reads the clock or system randomness, or waits,
/// except through a `SyncEnvironment` (`Scripts/check-environment.sh` checks it; `Postbox`, below this layer, takes its
/// waiting from its caller), so a simulation that passes ``seeded(_:now:uptime:sleep:)`` draws every random id, key
/// and jitter from its seed, and one that passes its own `sleep` runs every backoff and poll on its own clock. Key material stays
/// cryptographically random in production because ``live`` draws from ``SecureRandom``.
///
/// Time at API boundaries is one type: seconds as a `Double` — ``now`` is Unix time (what msg_ids, TL dates and
/// server deadlines count in), ``uptime`` a monotonic count from an arbitrary origin (what timers and gap waits count
/// in, immune to the wall clock being set back).
public struct SyncEnvironment: Sendable {
    /// Seconds since 1970-01-01 UTC.
    public var now: @Sendable () -> Double
    /// Monotonic seconds from an arbitrary origin.
    public var uptime: @Sendable () -> Double
    /// Every random value: ids, padding, key material, jitter.
    public var random: RandomSource
    /// Waits for a duration (measured on `uptime`'s clock): every backoff, poll and pause. Throws when the waiting
    /// task is cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Whether the platform's file notifications may stand in for polling (Postbox's watch for other processes'
    /// commits): true for ``live``; false where every wait must be on the environment's own clock (a simulation).
    public var watchesFiles = false

    public init(now: @escaping @Sendable () -> Double, uptime: @escaping @Sendable () -> Double, random: RandomSource,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.now = now
        self.uptime = uptime
        self.random = random
        self.sleep = sleep
    }

    /// This environment, waiting with `sleep` instead (a test that records or skips the waits).
    public func waiting(with sleep: @escaping @Sendable (Duration) async throws -> Void) -> SyncEnvironment {
        var environment = self
        environment.sleep = sleep
        return environment
    }

    /// Waits `seconds` (see ``sleep``).
    public func sleep(seconds: Double) async throws {
        try await sleep(.nanoseconds(Int64((max(0, seconds) * 1e9).rounded(.up))))
    }

    /// The system clock and OpenSSL's CSPRNG.
    public static var live: SyncEnvironment {
        let clock = ContinuousClock()
        let origin = clock.now
        var environment = SyncEnvironment(
            now: { Date().timeIntervalSince1970 },
            uptime: { (clock.now - origin).seconds },
            random: RandomSource(SecureRandom()))
        environment.watchesFiles = true
        return environment
    }

    /// Randomness from `seed` (SplitMix64: reproducible, not for production keys) and the given clocks and waiting
    /// (the system's when not given).
    public static func seeded(_ seed: UInt64, now: (@Sendable () -> Double)? = nil, uptime: (@Sendable () -> Double)? = nil,
                              sleep: (@Sendable (Duration) async throws -> Void)? = nil) -> SyncEnvironment {
        let live = SyncEnvironment.live
        return SyncEnvironment(now: now ?? live.now, uptime: uptime ?? live.uptime, random: RandomSource(SplitMix64(seed: seed)),
                               sleep: sleep ?? live.sleep)
    }

    /// ``now`` as TL's `int` date.
    public var unixTime: Int32 { Int32(clamping: Int64(now())) }
}

/// A generator shared by reference (an actor's tasks and NIO's event loops draw from one source), behind a lock.
public final class RandomSource: RandomNumberGenerator, Sendable {
    private let generator: Mutex<any RandomNumberGenerator & Sendable>

    public init(_ generator: some RandomNumberGenerator & Sendable) {
        self.generator = Mutex(generator)
    }

    public func next() -> UInt64 {
        generator.withLock { $0.next() }
    }

    /// A value in `range`, drawn from this source.
    public func int64(in range: ClosedRange<Int64>) -> Int64 {
        var source = self
        return Int64.random(in: range, using: &source)
    }

    /// A value in `range`, drawn from this source.
    public func double(in range: ClosedRange<Double>) -> Double {
        var source = self
        return Double.random(in: range, using: &source)
    }
}

extension Duration {
    /// Whole and fractional seconds, as a `Double` (the time type `SyncEnvironment` uses at API boundaries).
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
