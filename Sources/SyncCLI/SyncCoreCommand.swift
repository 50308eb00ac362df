import ArgumentParser

@main
struct SyncCoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synccore",
        abstract: "SyncCore: Telegram-style state synchronization — reference server, client core and tools.",
        subcommands: [DemoCommand.self, LoginCommand.self, ChatsCommand.self, SendCommand.self, SendFileCommand.self, DownloadCommand.self, HistoryCommand.self, PinCommand.self,
                      PinChatCommand.self, ProfileCommand.self, SearchCommand.self, ContactsCommand.self, ForwardCommand.self,
                      WatchCommand.self, ChatCommand.self,
                      LogoutCommand.self, ServerCommand.self, ReplayCommand.self, SimulateCommand.self, BenchCommand.self, DebugCommand.self]
    )

    /// ArgumentParser's entry point, after the allocator is set for large buffers (`AllocatorTuning`).
    static func main() async {
        AllocatorTuning.apply()
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
