import Testing
import TL
@testable import MTProtoNIO

/// Sources asked in parallel: the first valid answer wins at once, refused answers never win, and the whole run is
/// bounded by its deadline.
/// Elapsed-time checks only tell "cancelled / bounded" from "waited for the slow thing" (300 s): their bound (60 s)
/// is far from both, so a loaded machine does not fail them.
@Suite(.timeLimit(.minutes(3)))
struct EndpointDiscoveryTests {
    struct Refused: Error {}

    static func options(port: Int32) -> [API.DcOption] {
        [.dcOption(.init(id: 2, ipAddress: "127.0.0.1", port: port))]
    }

    /// A source answering `answer` (or failing) after `delay`; cancellation ends its wait.
    static func source(_ name: String, after delay: Duration, _ answer: [API.DcOption]?) -> ClosureEndpointSource {
        ClosureEndpointSource(name: name) {
            try await Task.sleep(for: delay)
            guard let answer else { throw Refused() }
            return answer
        }
    }

    @Test func theFirstValidAnswerWinsAndTheSlowerSourceIsCancelled() async throws {
        let discovery = EndpointDiscovery(sources: [
            Self.source("slow", after: .seconds(300), Self.options(port: 2)),
            Self.source("fast", after: .milliseconds(50), Self.options(port: 1)),
        ], timeout: .seconds(30))
        let started = ContinuousClock.now
        let winner = try await discovery.run()
        #expect(winner.source == "fast" && winner.options == Self.options(port: 1))
        #expect(ContinuousClock.now - started < .seconds(60))   // the slow source did not hold the result back
    }

    @Test func aRefusedOrEmptyAnswerNeverWins() async throws {
        let discovery = EndpointDiscovery(sources: [
            Self.source("bad signature", after: .milliseconds(10), nil),
            Self.source("empty", after: .milliseconds(10), []),
            Self.source("good", after: .milliseconds(150), Self.options(port: 3)),
        ])
        let winner = try await discovery.run()
        #expect(winner.source == "good")
    }

    @Test func whenEverySourceFailsEachFailureIsReported() async {
        let discovery = EndpointDiscovery(sources: [Self.source("a", after: .zero, nil), Self.source("b", after: .zero, [])])
        await #expect {
            try await discovery.run()
        } throws: { error in
            guard case let DiscoveryError.noValidAnswer(reasons) = error else { return false }
            return reasons.count == 2 && reasons.contains { $0.hasPrefix("a:") } && reasons.contains { $0 == "b: no address" }
        }
        await #expect(throws: DiscoveryError.noSources) { try await EndpointDiscovery(sources: []).run() }
    }

    @Test func aSourceThatNeverAnswersEndsAtTheDeadline() async {
        let discovery = EndpointDiscovery(sources: [Self.source("silent", after: .seconds(300), nil)], timeout: .milliseconds(200))
        let started = ContinuousClock.now
        await #expect(throws: DiscoveryError.timedOut) { try await discovery.run() }
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func plainHTTPURLs() throws {
        #expect(try PlainHTTPURL("http://127.0.0.1:8080/config") == PlainHTTPURL("http://127.0.0.1:8080/config"))
        let url = try PlainHTTPURL("http://example.org")
        #expect(url.host == "example.org" && url.port == 80 && url.path == "/")
        for bad in ["https://example.org/", "ftp://x", "http://:80/", "http://host:99999/", "http://a:b:c/"] {
            #expect(throws: HTTPFetchError.self) { try PlainHTTPURL(bad) }
        }
    }
}
