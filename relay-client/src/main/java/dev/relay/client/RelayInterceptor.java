package dev.relay.client;

import dev.relay.protocol.JobSpec;

/**
 * A hook around enqueue and around handling, so cross-cutting context (a W3C {@code traceparent}, a
 * tenant id) can travel with a job in its headers: {@link #beforeEnqueue} adds headers on the
 * producer, {@link #aroundHandle} reads them back on the worker and sets the context up around the
 * handler.
 *
 * <p>Registered with {@link ClientOptions.Builder#interceptor(RelayInterceptor)}; several apply in
 * registration order, and the first registered is the outermost around a handler. Both methods run
 * on the caller's thread (the enqueuing thread, or the worker's handler thread), so they must not
 * block for long.
 */
public interface RelayInterceptor {
  /**
   * Called for every job enqueued through the client, once per job of a batch, before it is sent;
   * answers the spec to send, for example {@code spec.withHeader("traceparent", value)}. The
   * default returns {@code spec} unchanged. An exception fails that enqueue's future.
   */
  default JobSpec beforeEnqueue(JobSpec spec) {
    return spec;
  }

  /**
   * Wraps every handler run on a {@link Worker} of this client; must call {@code next.handle(job)}
   * exactly once and let its exception through (or throw its own), since returning normally ACKs
   * the job. The default only calls {@code next}.
   */
  default void aroundHandle(Job job, JobHandler next) throws Exception {
    next.handle(job);
  }
}
