import MTProto
import Testing

/// `ConnectionRoutes`, table by table, with no sockets: what carries each call, which worker takes a download, when a
/// login is carried to another data center, when a call waits for the network.
struct ConnectionRoutesTests {
    let routes = ConnectionRoutes(workersPerDataCenter: 4)
    /// Home is DC 2, logged in as 1001; DC 4 has a key with no login; DC 5 a key logged in as someone else; DC 1 none.
    let network = ConnectionRoutes.Network(home: 2, keys: [4], logins: [2: 1001, 5: 1002])

    @Test func callsGoWhereTheyAreSentOrHomeOnTheRightCarrier() {
        let rows: [(dc: Int32?, download: Bool, pushes: Bool, expected: ConnectionRoutes.Route)] = [
            (nil, false, true, .init(dc: 2, kind: .main)),
            (4, false, true, .init(dc: 4, kind: .main)),
            (nil, false, false, .init(dc: 2, kind: .main, withoutUpdates: true)),          // a process that wants no pushes
            (nil, true, true, .init(dc: 2, kind: .download, withoutUpdates: true)),        // workers never get pushes
            (4, true, true, .init(dc: 4, kind: .download, withoutUpdates: true)),          // a key without a login is a key
            (1, true, true, .init(dc: 1, kind: .download, makesKeyFirst: true, withoutUpdates: true)),
            (1, false, true, .init(dc: 1, kind: .main)),                                   // the main connection makes its own
        ]
        for row in rows {
            var network = network
            network.pushesWanted = row.pushes
            #expect(routes.route(to: row.dc, download: row.download, in: network) == row.expected, "\(row)")
        }
        var moved = network
        moved.home = 4   // a migration moved home: calls that name no data center follow it
        #expect(routes.route(to: nil, download: false, in: moved).dc == 4)
    }

    @Test func aDownloadTakesAnIdleWorkerThenANewOneThenTheLeastBusy() {
        let rows: [(pool: [Int], expected: ConnectionRoutes.WorkerChoice)] = [
            ([], .open),
            ([0], .use(0)),
            ([2, 0, 1], .use(1)),          // the first idle one
            ([1], .open),                  // every worker busy and fewer than four: one more
            ([3, 1, 2], .open),
            ([3, 1, 2, 5], .use(1)),       // four open: the least busy
            ([2, 2, 2, 2], .use(0)),
        ]
        for row in rows { #expect(routes.worker(inFlight: row.pool) == row.expected, "\(row.pool)") }
        #expect(ConnectionRoutes(workersPerDataCenter: 1).worker(inFlight: [7]) == .use(0))
    }

    @Test func theHomeLoginIsCarriedOnceToEachOtherDataCenter() {
        #expect(routes.authorizationToTransfer(to: 2, in: network) == nil)       // home itself
        #expect(routes.authorizationToTransfer(to: 4, in: network) == 1001)      // a key with no login
        #expect(routes.authorizationToTransfer(to: 1, in: network) == 1001)      // no key yet (made on the way)
        #expect(routes.authorizationToTransfer(to: 5, in: network) == 1001)      // logged in as another account
        var carried = network
        carried.logins[4] = 1001
        #expect(routes.authorizationToTransfer(to: 4, in: carried) == nil)       // done once
        var loggedOut = network
        loggedOut.logins[2] = nil
        #expect(routes.authorizationToTransfer(to: 4, in: loggedOut) == nil)     // nothing to carry
    }

    @Test func aFailureAtTheLoggedInHomeIsTheAccountsAndCallsWaitForTheNetwork() {
        #expect(routes.wentToLoggedInHome(2, in: network, loggingOut: false))
        #expect(!routes.wentToLoggedInHome(2, in: network, loggingOut: true))    // the app's own logout
        #expect(!routes.wentToLoggedInHome(4, in: network, loggingOut: false))
        var signedOut = network
        signedOut.logins[2] = nil
        #expect(!routes.wentToLoggedInHome(2, in: signedOut, loggingOut: false))
        #expect(!routes.waitsForNetwork(network))
        var away = network
        away.available = false
        #expect(routes.waitsForNetwork(away))
    }
}
