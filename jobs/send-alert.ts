import { deliverAlert } from '../src/ops/deliverAlert.ts';
import { defineJob } from '../src/queue/job.ts';

/** One alert to every configured destination that does not have it yet; a failure retries on this queue only. */
export default defineJob('send-alert', {
  async handle(payload, context) {
    await deliverAlert(context, payload.alert_id);
  },
});
