/// `updates.getState` and `updates.getDifference` over the user's common box, `updates.getChannelDifference` over a
/// channel's log (core.telegram.org/api/updates). qts is kept and reported but nothing produces secondary-box events
/// yet; seq stays 0 (pushes carry pts).
enum UpdatesRPC {}
