/// `body`, run again after `pause` while it fails with an error `isTransient` accepts and `seconds` have not passed:
/// for tests whose set-up or follow-up calls have short deadlines (a statement's, a login's) that a machine busy with
/// the whole suite can pass, outside what the test checks.
public func retrying<T>(for seconds: Double, pause: Duration = .milliseconds(200), when isTransient: (any Error) -> Bool,
                        _ body: () async throws -> T) async throws -> T {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        do {
            return try await body()
        } catch where isTransient(error) && ContinuousClock.now < deadline {
            try await Task.sleep(for: pause)
        }
    }
}
