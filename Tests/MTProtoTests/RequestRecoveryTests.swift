import MTProto
import Testing

/// The send path's rules without sockets: what each failure leads to, and that every retry is bounded.
struct RequestRecoveryTests {
    let rules = RequestRecovery(floodSleepLimit: 10, transientAttempts: 4)

    func decide(_ failure: RequestRecovery.Failure, _ attempt: inout RequestRecovery.Attempt, movable: Bool = true,
                homeLoggedIn: Bool = true, loginUnchanged: Bool = true, canDiscover: Bool = false) -> RequestRecovery.Decision {
        rules.decide(failure, &attempt, movable: movable, homeLoggedIn: homeLoggedIn, loginUnchanged: loginUnchanged,
                     canDiscover: canDiscover, backoff: { Double($0) })
    }

    @Test func aClosedConnectionAndAnUnknownKeyAreRecoveredFromOnce() {
        var attempt = RequestRecovery.Attempt()
        #expect(decide(.connectionClosed, &attempt) == .reconnect)
        #expect(decide(.connectionClosed, &attempt) == .fail)
        #expect(decide(.unknownKey, &attempt) == .replaceKey)
        #expect(decide(.unknownKey, &attempt) == .fail)
        #expect(decide(.timedOut, &attempt) == .dropAndFail)
    }

    @Test func floodWaitsAndTransientErrorsAreRetriedWithinBounds() {
        var attempt = RequestRecovery.Attempt()
        #expect(decide(.rpc(RPCError(code: 420, message: "FLOOD_WAIT_7")), &attempt) == .retry(after: 7))
        #expect(decide(.rpc(RPCError(code: 420, message: "FLOOD_WAIT_7")), &attempt) == .fail, "slept through once")
        var long = RequestRecovery.Attempt()
        #expect(decide(.rpc(RPCError(code: 420, message: "FLOOD_WAIT_11")), &long) == .fail)
        var transient = RequestRecovery.Attempt()
        let waits = (0..<5).map { _ in decide(.rpc(RPCError(code: 500, message: "INTERNAL")), &transient) }
        #expect(waits == [.retry(after: 1), .retry(after: 2), .retry(after: 3), .fail, .fail])
        var unreachable = RequestRecovery.Attempt()
        #expect(decide(.unreachable, &unreachable, canDiscover: true) == .discover)
        #expect(decide(.unreachable, &unreachable, canDiscover: true) == .retry(after: 2))
        #expect(decide(.unreachable, &unreachable, canDiscover: true) == .retry(after: 3))
        #expect(decide(.unreachable, &unreachable, canDiscover: true) == .fail)
    }

    @Test func migrationsMoveHomeOnceAndOnlyForRequestsToHome() {
        var attempt = RequestRecovery.Attempt()
        #expect(decide(.rpc(RPCError(code: 303, message: "PHONE_MIGRATE_1")), &attempt) == .moveHome(to: 1))
        #expect(decide(.rpc(RPCError(code: 303, message: "USER_MIGRATE_2")), &attempt) == .fail, "a second move is a loop")
        var pinned = RequestRecovery.Attempt()
        #expect(decide(.rpc(RPCError(code: 303, message: "NETWORK_MIGRATE_4")), &pinned, movable: false) == .fail)
    }

    @Test func authErrorsEndLogins() {
        var attempt = RequestRecovery.Attempt()
        #expect(decide(.rpc(RPCError(code: 406, message: "AUTH_KEY_DUPLICATED")), &attempt) == .dropAllKeys)
        #expect(decide(.rpc(RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED")), &attempt) == .loggedOutElsewhere("AUTH_KEY_UNREGISTERED"))
        #expect(decide(.rpc(RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED")), &attempt, homeLoggedIn: false) == .forgetLogin)
        #expect(decide(.rpc(RPCError(code: 401, message: "SESSION_PASSWORD_NEEDED")), &attempt) == .fail)
        // Sent before a login that has happened since: neither a logout nor a reason to forget the new login.
        #expect(decide(.rpc(RPCError(code: 401, message: "AUTH_KEY_UNREGISTERED")), &attempt, loginUnchanged: false) == .fail)
        #expect(decide(.rpc(RPCError(code: 400, message: "PEER_ID_INVALID")), &attempt) == .fail)
    }
}
