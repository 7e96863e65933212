package dev.relay.protocol;

/** A message a server sends, carrying the request id of the request it answers. */
public sealed interface Response extends Message
    permits Ok,
        Welcome,
        Enqueued,
        EnqueuedBatch,
        Leased,
        Renewed,
        StatsResult,
        JobInfo,
        DeadJobs,
        Requeued,
        BackedUp,
        Purged,
        Jobs,
        PayloadPart,
        ErrorResponse {}
