// MessageAPI (message_api.json): a workspace inbox of single-receiver messages.
import { PyRandom } from '../py-random.ts';
import { deepCopy, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, req, str, truthy } from './env.ts';

const DEFAULTS = (): Dict => ({
  user_count: 4,
  user_map: { Alice: 'USR001', Bob: 'USR002', Catherine: 'USR003', Daniel: 'USR004' },
  inbox: [
    { USR002: 'My name is Alice. I want to connect.' },
    { USR003: 'Could you upload the file?' },
    { USR004: 'Could you upload the file?' },
  ],
  message_count: 3,
  current_user: null,
});

export class MessageAPI implements BfclEnv {
  generated_ids = new Set<PyValue>();
  user_count = 4;
  user_map: Dict = {};
  inbox: PyValue[] = [];
  message_count = 3;
  current_user: PyValue = null;
  private random = new PyRandom(200191);

  load(cfg: Dict): void {
    const c = { ...DEFAULTS(), ...deepCopy(cfg) };
    this.random = new PyRandom(typeof c.random_seed === 'number' ? c.random_seed : 200191);
    this.generated_ids = new Set(Array.isArray(c.generated_ids) ? c.generated_ids : []);
    this.user_count = Number(c.user_count);
    this.user_map = isDict(c.user_map) ? c.user_map : {};
    this.inbox = Array.isArray(c.inbox) ? c.inbox : [];
    this.message_count = Number(c.message_count);
    this.current_user = c.current_user ?? null;
  }

  state(): Record<string, PyValue> {
    return {
      generated_ids: this.generated_ids,
      user_count: this.user_count,
      user_map: this.user_map,
      inbox: this.inbox,
      message_count: this.message_count,
      current_user: this.current_user,
    };
  }

  private ids(): PyValue[] {
    return Object.values(this.user_map);
  }

  private first(message: PyValue): [string, PyValue] {
    const entry = isDict(message) ? Object.entries(message)[0] : undefined;
    if (entry === undefined) throw new Error('inbox message without a receiver');
    return entry;
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const noUser = (): Dict | undefined =>
      truthy(this.current_user) ? undefined : { error: 'No user is currently logged in.' };
    return dispatch(
      'MessageAPI',
      {
        list_users: () => ({ user_list: Object.keys(this.user_map) }),
        get_user_id: () => {
          const user = str(r('user'));
          if (!Object.hasOwn(this.user_map, user)) return { error: `User '${user}' not found in the workspace.` };
          return { user_id: this.user_map[user] ?? null };
        },
        message_login: () => {
          const id = r('user_id');
          if (!this.ids().includes(id)) return { login_status: false, message: `User ID '${str(id)}' not found.` };
          this.current_user = id;
          return { login_status: true, message: `User '${str(id)}' logged in successfully.` };
        },
        message_get_login_status: () => ({ login_status: truthy(this.current_user) }),
        send_message: () => {
          const receiver = r('receiver_id');
          const message = r('message');
          const denied = noUser();
          if (denied) return denied;
          if (!this.ids().includes(receiver)) return { error: `Receiver ID '${str(receiver)}' not found.` };
          let id = this.random.randint(10000, 99999);
          while (this.generated_ids.has(id)) id = this.random.randint(10000, 99999);
          this.generated_ids.add(id);
          this.inbox.push({ [str(receiver)]: message });
          this.message_count += 1;
          return {
            sent_status: true,
            message_id: { new_id: id },
            message: `Message sent to '${str(receiver)}' successfully.`,
          };
        },
        delete_message: () => {
          const receiver = r('receiver_id');
          const denied = noUser();
          if (denied) return denied;
          for (let i = this.inbox.length - 1; i >= 0; i--) {
            const [to] = this.first(this.inbox[i] ?? null);
            if (to === receiver) {
              // list.remove drops the first equal message, which may be an earlier copy.
              const target = JSON.stringify(this.inbox[i]);
              const at = this.inbox.findIndex((m) => JSON.stringify(m) === target);
              this.inbox.splice(at, 1);
              return {
                deleted_status: true,
                receiver_id: to,
                message: `Receiver ${str(receiver)}'s latest message deleted successfully.`,
              };
            }
          }
          return { error: `Receiver ID ${str(receiver)} not found.` };
        },
        view_messages_sent: () => {
          const denied = noUser();
          if (denied) return denied;
          const sent: Record<string, PyValue[]> = {};
          for (const m of this.inbox) {
            const [to, text] = this.first(m);
            (sent[to] ??= []).push(text);
          }
          return { messages: sent };
        },
        add_contact: () => {
          const name = str(r('user_name'));
          if (Object.hasOwn(this.user_map, name)) return { error: `User name '${name}' already exists.` };
          this.user_count += 1;
          const id = `USR${String(this.user_count).padStart(3, '0')}`;
          if (this.ids().includes(id)) return { error: `User ID '${id}' already exists.` };
          this.user_map[name] = id;
          return { added_status: true, user_id: id, message: `Contact '${name}' added successfully.` };
        },
        search_messages: () => {
          const kw = str(r('keyword')).toLowerCase();
          const denied = noUser();
          if (denied) return denied;
          const results: PyValue[] = [];
          for (const m of this.inbox) {
            const [to, text] = this.first(m);
            if (str(text).toLowerCase().includes(kw)) results.push({ receiver_id: to, message: text });
          }
          return { results };
        },
        get_message_stats: () => {
          const denied = noUser();
          if (denied) return denied;
          const receivers = new Set(this.inbox.map((m) => this.first(m)[0]));
          return { stats: { received_count: this.inbox.length, total_contacts: receivers.size } };
        },
      },
      method,
      a,
    );
  }
}
