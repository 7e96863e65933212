package dev.relay.protocol;

/** A message a client sends; the server answers each with exactly one {@link Response}. */
public sealed interface Request extends Message
    permits Hello,
        Enqueue,
        EnqueueBatch,
        Lease,
        Ack,
        Nack,
        Release,
        Renew,
        Stats,
        Inspect,
        DeadList,
        DeadRequeue,
        Cancel,
        Pause,
        Resume,
        Backup,
        DeleteQueue,
        DeadPurge,
        JobsList,
        InspectPayload {}
