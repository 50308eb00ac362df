/// Repeats a body for a time budget and reports runs per second.
struct BenchTimer {
    var seconds: Double

    /// Runs `body` (after a warm-up) until `seconds` have passed; returns runs per second. `body` returns a
    /// number that is summed, so the work cannot be optimized away.
    func runsPerSecond(batch: Int = 20, _ body: () throws -> Int) rethrows -> Double {
        for _ in 0..<min(batch, 10) { _ = try body() }
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        var runs = 0
        var sink = 0
        while clock.now - start < budget {
            for _ in 0..<batch { sink &+= try body() }
            runs += batch
        }
        if sink == Int.min { print("") }
        return Double(runs) / (clock.now - start).seconds
    }
}
