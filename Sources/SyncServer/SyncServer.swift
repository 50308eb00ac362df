// SyncServer: the reference server (accounts, update logs, differences, push, several data centers).
// Built by the issue "Reference server: …". Nothing is implemented here yet.
