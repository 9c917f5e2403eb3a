// TicketAPI (ticket_api.json): a support ticket queue with a logged-in user.
import { deepCopy, pyEqual, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, item, req, str, truthy } from './env.ts';

export class TicketAPI implements BfclEnv {
  ticket_queue: PyValue[] = [];
  ticket_counter: PyValue = 1;
  current_user: PyValue = null;

  load(cfg: Dict): void {
    const c = deepCopy(cfg);
    this.ticket_queue = Array.isArray(c.ticket_queue) ? c.ticket_queue : [];
    this.ticket_counter = 'ticket_counter' in c ? c.ticket_counter : 1;
    this.current_user = 'current_user' in c ? c.current_user : null;
  }

  state(): Record<string, PyValue> {
    return { ticket_queue: this.ticket_queue, ticket_counter: this.ticket_counter, current_user: this.current_user };
  }

  /** The first ticket whose id equals; a ticket without an id raises KeyError, as upstream. */
  private find(id: PyValue): Dict | undefined {
    for (const t of this.ticket_queue) if (pyEqual(item(t, 'id'), id)) return t as Dict;
    return undefined;
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const missing = (id: PyValue): Dict => ({ error: `Ticket with ID ${str(id)} not found.` });
    return dispatch(
      'TicketAPI',
      {
        create_ticket: () => {
          const title = r('title');
          const description = 'description' in a ? a.description : '';
          const priority = 'priority' in a ? a.priority : 1;
          if (!truthy(this.current_user)) return { error: 'User not authenticated. Please log in to create a ticket.' };
          if (Number(priority) < 1 || Number(priority) > 5)
            return { error: 'Invalid priority. Priority must be between 1 and 5.' };
          const ticket: Dict = {
            id: this.ticket_counter,
            title,
            description,
            status: 'Open',
            priority,
            created_by: this.current_user,
          };
          this.ticket_queue.push(ticket);
          this.ticket_counter = Number(this.ticket_counter) + 1;
          return ticket;
        },
        get_ticket: () => {
          const id = r('ticket_id');
          return this.find(id) ?? missing(id);
        },
        close_ticket: () => {
          const id = r('ticket_id');
          const t = this.find(id);
          if (t === undefined) return missing(id);
          if (item(t, 'status') === 'Closed') return { error: `Ticket with ID ${str(id)} is already closed.` };
          t.status = 'Closed';
          return { status: `Ticket ${str(id)} has been closed successfully.` };
        },
        resolve_ticket: () => {
          const id = r('ticket_id');
          const resolution = r('resolution');
          const t = this.find(id);
          if (t === undefined) return missing(id);
          if (item(t, 'status') === 'Resolved') return { error: `Ticket with ID ${str(id)} is already resolved.` };
          t.status = 'Resolved';
          t.resolution = resolution;
          return { status: `Ticket ${str(id)} has been resolved successfully.` };
        },
        edit_ticket: () => {
          const id = r('ticket_id');
          const updates = r('updates');
          const t = this.find(id);
          if (t === undefined) return missing(id);
          const fields = isDict(updates) ? Object.entries(updates) : [];
          const invalid = fields
            .map(([k]) => k)
            .filter((k) => !['title', 'description', 'status', 'priority'].includes(k));
          if (invalid.length > 0) return { error: `Invalid fields for update: ${invalid.join(', ')}` };
          for (const [k, v] of fields) if (v !== null && v !== undefined) t[k] = v;
          return { status: `Ticket ${str(id)} has been updated successfully.` };
        },
        ticket_login: () => {
          const user = r('username');
          const password = r('password');
          if (truthy(user) && truthy(password)) {
            this.current_user = user;
            return { success: true };
          }
          return { success: false };
        },
        ticket_get_login_status: () => ({ login_status: truthy(this.current_user) }),
        logout: () => {
          if (!truthy(this.current_user)) return { success: false };
          this.current_user = null;
          return { success: true };
        },
        get_user_tickets: () => {
          const status = 'status' in a ? a.status : null;
          if (!truthy(this.current_user)) return [{ error: 'User not authenticated. Please log in to view tickets.' }];
          let mine = this.ticket_queue.filter((t) => pyEqual(item(t, 'created_by'), this.current_user));
          if (truthy(status))
            mine = mine.filter((t) => str(item(t, 'status')).toLowerCase() === str(status).toLowerCase());
          return mine;
        },
      },
      method,
      a,
    );
  }
}
