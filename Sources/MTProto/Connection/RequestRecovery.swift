/// What a client does after a request to a data center failed, without I/O: the rules of `ConnectionManager`'s send
/// path (core.telegram.org/api/errors, /api/datacenter, /mtproto/mtproto-transports#transport-errors), decided here
/// and executed there, so each can be tested without sockets.
///
/// - A connection found closed is replaced and the request sent again, once; a key the server does not know
///   (transport error −404) is forgotten and a new one made, once.
/// - `FLOOD_WAIT_X` up to `floodSleepLimit` seconds is waited out once; longer ones reach the caller.
/// - `500`, `-503` and a data center none of whose addresses answer are retried with backoff, `transientAttempts` in
///   all; when addresses run out, discovery is asked first (once).
/// - `PHONE_MIGRATE_X`, `USER_MIGRATE_X`, `NETWORK_MIGRATE_X` on a request to the home data center move it and
///   repeat the request there, once (a second move is a loop the server should not cause).
/// - `AUTH_KEY_DUPLICATED` ends every session and login; a `401` on the logged-in home data center is a logout
///   elsewhere; a timeout drops the connection and fails (the request may have run: it is not resent).
public struct RequestRecovery: Sendable {
    public enum Failure: Equatable, Sendable {
        case rpc(RPCError)
        case connectionClosed
        /// Transport error −404: the server does not know the key.
        case unknownKey
        case timedOut
        /// Every address of the data center failed.
        case unreachable
        /// The directory has no address for the data center.
        case unknownDataCenter
    }

    public enum Decision: Equatable, Sendable {
        /// Sleep this many seconds, then send again.
        case retry(after: Double)
        /// Close the connection and send again on a new one.
        case reconnect
        /// Close the connection, forget the key and send again (a new key exchange).
        case replaceKey
        /// Ask the discovery sources (or the other data centers) for addresses, then send again.
        case discover
        /// Make this data center the home one and send there.
        case moveHome(to: Int32)
        /// Every key and login is void (`AUTH_KEY_DUPLICATED`): forget them, then fail.
        case dropAllKeys
        /// The home login ended elsewhere: forget it, announce the logout, then fail.
        case loggedOutElsewhere(String)
        /// The data center's login alone is void (a transferred one): forget it, then fail.
        case forgetLogin
        /// Close the connection, then fail.
        case dropAndFail
        case fail
    }

    /// What one request has already been through.
    public struct Attempt: Equatable, Sendable {
        public var number = 1
        public var sleptForFlood = false
        public var discovered = false
        public var replacedConnection = false
        public var replacedKey = false
        public var moved = false

        public init() {}
    }

    public var floodSleepLimit: Int32
    public var transientAttempts: Int

    public init(floodSleepLimit: Int32 = 10, transientAttempts: Int = 4) {
        self.floodSleepLimit = floodSleepLimit
        self.transientAttempts = transientAttempts
    }

    /// The decision for `failure`, updating `attempt`. `movable`: the request goes to whichever data center is home
    /// (a migration moves it); `homeLoggedIn`: it went to the home data center while logged in there;
    /// `loginUnchanged`: no login or logout happened on that data center while the request was out (a 401 answering a
    /// request sent before a login says nothing about the login made since).
    /// `backoff(n)` is the wait before attempt n + 1 (jittered by the caller's random source).
    public func decide(_ failure: Failure, _ attempt: inout Attempt, movable: Bool, homeLoggedIn: Bool,
                       loginUnchanged: Bool = true, canDiscover: Bool, backoff: (Int) -> Double) -> Decision {
        switch failure {
        case .connectionClosed:
            guard !attempt.replacedConnection else { return .fail }
            attempt.replacedConnection = true
            return .reconnect
        case .unknownKey:
            guard !attempt.replacedKey else { return .fail }
            attempt.replacedKey = true
            return .replaceKey
        case .timedOut:
            return .dropAndFail
        case .unknownDataCenter:
            guard canDiscover, !attempt.discovered else { return .fail }
            attempt.discovered = true
            return .discover
        case .unreachable:
            guard attempt.number < transientAttempts else { return .fail }
            defer { attempt.number += 1 }
            if canDiscover, !attempt.discovered {
                attempt.discovered = true
                return .discover
            }
            return .retry(after: backoff(attempt.number))
        case let .rpc(error):
            return decide(error, &attempt, movable: movable, homeLoggedIn: homeLoggedIn, loginUnchanged: loginUnchanged,
                          backoff: backoff)
        }
    }

    private func decide(_ error: RPCError, _ attempt: inout Attempt, movable: Bool, homeLoggedIn: Bool, loginUnchanged: Bool,
                        backoff: (Int) -> Double) -> Decision {
        if error.message == "AUTH_KEY_DUPLICATED" { return .dropAllKeys }
        if error.code == 401, error.message != "SESSION_PASSWORD_NEEDED" {
            guard loginUnchanged else { return .fail }
            return homeLoggedIn ? .loggedOutElsewhere(error.message) : .forgetLogin
        }
        if let seconds = error.floodWaitSeconds, seconds <= floodSleepLimit, !attempt.sleptForFlood {
            attempt.sleptForFlood = true
            return .retry(after: Double(seconds))
        }
        if error.code == 500 || error.code == -503, attempt.number < transientAttempts {
            defer { attempt.number += 1 }
            return .retry(after: backoff(attempt.number))
        }
        switch error.migration {
        case let .phone(dc)?, let .user(dc)?, let .network(dc)?:
            guard movable, !attempt.moved else { return .fail }
            attempt.moved = true
            return .moveHome(to: dc)
        default:
            return .fail
        }
    }
}
