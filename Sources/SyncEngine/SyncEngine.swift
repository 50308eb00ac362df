// SyncEngine: update normalizer, sequencer (message box), AccountStateManager and the Account API.
// Built by the issue "Sync engine: update sequencer, AccountStateManager, …". Nothing is implemented here yet.
