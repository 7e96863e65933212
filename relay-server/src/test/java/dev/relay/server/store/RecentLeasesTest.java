package dev.relay.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecentLeasesTest {
  final RecentLeases leases = new RecentLeases();

  @Test
  void the_latest_grant_of_a_job_is_remembered() {
    leases.granted(7, "a", 1_000);
    leases.granted(7, "a", 2_000);

    assertThat(leases.latest(7)).isEqualTo(new RecentLeases.Grant(7, "a", 2_000));
    assertThat(leases.latest(8)).isNull();
  }

  @Test
  void a_job_whose_slot_another_grant_took_is_not_remembered() {
    leases.granted(5, "a", 1_000);
    leases.granted(5 + RecentLeases.SLOTS, "b", 2_000);

    assertThat(leases.latest(5)).isNull();
    assertThat(leases.latest(5 + RecentLeases.SLOTS))
        .isEqualTo(new RecentLeases.Grant(5 + RecentLeases.SLOTS, "b", 2_000));
  }

  @Test
  void ids_in_order_keep_a_slot_each_until_the_slots_run_out() {
    for (long id = 1; id <= RecentLeases.SLOTS; id++) {
      leases.granted(id, "q", id);
    }
    for (long id = 1; id <= RecentLeases.SLOTS; id++) {
      assertThat(leases.latest(id)).isNotNull();
    }
  }

  @Test
  void forgetting_forgets_every_grant() {
    leases.granted(1, "a", 1_000);
    leases.granted(2, "a", 1_000);

    leases.forgetAll();

    assertThat(leases.latest(1)).isNull();
    assertThat(leases.latest(2)).isNull();
  }
}
