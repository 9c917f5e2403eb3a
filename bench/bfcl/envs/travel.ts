// TravelAPI (travel_booking.json): token, cards, flight costs and bookings.
import { filler } from '../filler.ts';
import { PyRandom } from '../py-random.ts';
import { deepCopy, PyError, pyRepr, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, item, num, req, str } from './env.ts';

/** Base fares of the directed routes, in upstream's table order. */
const ROUTES: readonly (readonly [string, string, number])[] = (
  'SFO LAX 200,SFO JFK 500,SFO ORD 400,SFO BOS 450,SFO RMS 300,SFO SBK 350,SFO MPC 370,SFO SVP 320,SFO SHD 330,' +
  'SFO SSV 340,SFO OKD 360,SFO WLB 310,SFO CRH 380,SFO ATV 390,SFO PHV 420,SFO GFD 430,SFO CIA 700,' +
  'LAX SFO 100,LAX JFK 600,LAX ORD 500,LAX BOS 550,LAX RMS 310,LAX SBK 320,LAX MPC 330,LAX SVP 340,LAX SHD 350,' +
  'LAX SSV 360,LAX OKD 370,LAX WLB 380,LAX CRH 390,LAX ATV 400,LAX PHV 410,LAX GFD 420,LAX HND 430,' +
  'JFK ORD 300,JFK BOS 250,JFK RMS 450,JFK SBK 460,JFK MPC 470,JFK SVP 480,JFK SHD 490,JFK SSV 500,JFK OKD 510,' +
  'JFK WLB 520,JFK CRH 530,JFK ATV 540,JFK PHV 550,JFK GFD 560,JFK LAX 570,JFK HND 800,JFK PVG 950,JFK PEK 1000,' +
  'ORD LAX 180,ORD BOS 200,ORD RMS 350,ORD SBK 360,ORD MPC 370,ORD SVP 380,ORD SHD 390,ORD SSV 400,ORD OKD 410,' +
  'ORD WLB 420,ORD CRH 430,ORD ATV 440,ORD PHV 450,ORD GFD 460,' +
  'BOS RMS 400,BOS SBK 410,BOS MPC 420,BOS SVP 430,BOS SHD 440,BOS SSV 450,BOS OKD 460,BOS WLB 470,BOS CRH 480,' +
  'BOS ATV 490,BOS PHV 500,BOS GFD 510,' +
  'RMS BOS 200,RMS JFK 210,RMS SBK 220,RMS MPC 230,RMS SVP 240,RMS SHD 250,RMS SSV 260,RMS OKD 270,RMS WLB 280,' +
  'RMS CRH 290,RMS ATV 300,RMS PHV 310,RMS GFD 320,RMS LAX 330,' +
  'SBK MPC 200,SBK SVP 210,SBK SHD 220,SBK SSV 230,SBK OKD 240,SBK WLB 250,SBK CRH 260,SBK ATV 270,SBK PHV 280,SBK GFD 290,' +
  'MPC SVP 210,MPC SHD 220,MPC SSV 230,MPC OKD 240,MPC WLB 250,MPC CRH 260,MPC ATV 270,MPC PHV 280,MPC GFD 290,' +
  'SVP SHD 230,SVP SSV 240,SVP OKD 250,SVP WLB 260,SVP CRH 270,SVP ATV 280,SVP PHV 290,SVP GFD 300,' +
  'SHD SSV 220,SHD OKD 230,SHD WLB 240,SHD CRH 250,SHD ATV 260,SHD PHV 270,SHD GFD 280,' +
  'SSV OKD 240,SSV WLB 250,SSV CRH 260,SSV ATV 270,SSV PHV 280,SSV GFD 290,' +
  'OKD WLB 230,OKD CRH 240,OKD ATV 250,OKD PHV 260,OKD GFD 270,' +
  'WLB CRH 250,WLB ATV 260,WLB PHV 270,WLB GFD 280,' +
  'CRH ATV 240,CRH PHV 250,CRH GFD 260,CRH SFO 270,CRH RMS 280,CRH HKG 290,CRH JFK 300,' +
  'ATV PHV 230,ATV GFD 240,PHV GFD 220,LHR CDG 100,OKD LAX 220'
)
  .split(',')
  .map((r) => {
    const [from = '', to = '', cost = '0'] = r.split(' ');
    return [from, to, Number(cost)] as const;
  });

const AIRPORTS = 'RMS SBK MPC SVP SHD CDG LHR SSV OKD WLB PEK HND HKG CIA CRH ATV PHV GFD SFO LAX JFK ORD BOS'.split(
  ' ',
);

const CITY_AIRPORT: Readonly<Record<string, string>> = {
  Rivermist: 'RMS',
  Stonebrook: 'SBK',
  Maplecrest: 'MPC',
  Silverpine: 'SVP',
  Shadowridge: 'SHD',
  London: 'LHR',
  Paris: 'CDG',
  'Sunset Valley': 'SSV',
  Oakendale: 'OKD',
  Willowbend: 'WLB',
  'Crescent Hollow': 'CRH',
  Autumnville: 'ATV',
  Pinehaven: 'PHV',
  Greenfield: 'GFD',
  'San Francisco': 'SFO',
  'Los Angeles': 'LAX',
  'New York': 'JFK',
  Chicago: 'ORD',
  Boston: 'BOS',
  Beijing: 'PEK',
  'Hong Kong': 'HKG',
  Rome: 'CIA',
  Tokyo: 'HND',
};

const RATES: readonly (readonly [string, number])[] = [
  ['RMB', 7],
  ['EUR', 0.8],
  ['JPY', 110],
  ['GBP', 0.7],
  ['CAD', 1.3],
  ['AUD', 1.4],
  ['INR', 70],
  ['RUB', 60],
  ['BRL', 3.8],
  ['MXN', 20],
];

const CLASS_FACTOR: Readonly<Record<string, number>> = { economy: 1, business: 2, first: 5 };

/** Python's round(x, 2) (half to even on the exact binary value, as near as doubles allow). */
const round2 = (x: number): number => Number.parseFloat(x.toFixed(2));

const validDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
};

export class TravelAPI implements BfclEnv {
  credit_card_list: Dict = {};
  /** A Map: booking ids such as "3426812" would otherwise be reordered as array indices. */
  booking_record = new Map<string, PyValue>();
  access_token: PyValue = null;
  token_type: PyValue = null;
  token_expires_in: PyValue = null;
  token_scope: PyValue = null;
  user_first_name: PyValue = null;
  user_last_name: PyValue = null;
  budget_limit: PyValue = null;
  long_context = false;
  private random = new PyRandom(141053);
  private costCache = new Map<string, number>();

  load(cfg: Dict, longContext: boolean): void {
    const c = deepCopy(cfg);
    const get = (k: string, d: PyValue): PyValue => (k in c ? c[k] : d);
    this.random = new PyRandom(Number(get('random_seed', 141053)));
    this.credit_card_list = isDict(c.credit_card_list) ? c.credit_card_list : {};
    this.booking_record = new Map(Object.entries(isDict(c.booking_record) ? c.booking_record : {}));
    this.access_token = get('access_token', null);
    this.token_type = get('token_type', null);
    this.token_expires_in = get('token_expires_in', null);
    this.token_scope = get('token_scope', null);
    this.user_first_name = get('user_first_name', null);
    this.user_last_name = get('user_last_name', null);
    this.budget_limit = get('budget_limit', null);
    this.long_context = longContext;
    if (longContext) {
      for (const [k, v] of Object.entries(filler().CREDIT_CARD_EXTENSION))
        if (!Object.hasOwn(this.credit_card_list, k)) this.credit_card_list[k] = deepCopy(v);
      for (const [k, v] of Object.entries(filler().BOOKING_RECORD_EXTENSION))
        if (!this.booking_record.has(k)) this.booking_record.set(k, deepCopy(v));
    }
  }

  state(): Record<string, PyValue> {
    return {
      credit_card_list: this.credit_card_list,
      booking_record: this.booking_record,
      access_token: this.access_token,
      token_type: this.token_type,
      token_expires_in: this.token_expires_in,
      token_scope: this.token_scope,
      user_first_name: this.user_first_name,
      user_last_name: this.user_last_name,
      budget_limit: this.budget_limit,
      long_context: this.long_context,
    };
  }

  private flightCost(from: string, to: string, date: string, travelClass: string): number[] {
    const route = ROUTES.find(([f, t]) => f === from && t === to);
    if (route === undefined) throw new PyError('No available route for the given airports.');
    const factor = Object.hasOwn(CLASS_FACTOR, travelClass) ? CLASS_FACTOR[travelClass] : undefined;
    if (factor === undefined) throw new PyError('Invalid travel class. Options are: economy, business, first.');
    const digitSum = [...date].filter((c) => c >= '0' && c <= '9').reduce((s, c) => s + Number(c), 0);
    const multiplier = digitSum % 2 === 0 ? 2 : 1;
    this.costCache.clear();
    if (this.long_context) {
      return ROUTES.map(([f, t, base]) => {
        const cost = base * factor * multiplier;
        this.costCache.set(`${f}|${t}|${travelClass}|${date}`, cost);
        return cost;
      });
    }
    const cost = route[2] * factor * multiplier;
    this.costCache.set(`${from}|${to}|${travelClass}|${date}`, cost);
    return [cost];
  }

  private card(id: PyValue): Dict | undefined {
    const c = Object.hasOwn(this.credit_card_list, str(id)) ? this.credit_card_list[str(id)] : undefined;
    return isDict(c) ? c : undefined;
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const tokenError = (token: PyValue, extra: Dict = {}): Dict | undefined => {
      if (this.token_expires_in === 0) return { ...extra, error: 'Token expired' };
      if (token !== this.access_token) return { ...extra, error: 'Invalid access token' };
      return undefined;
    };
    return dispatch(
      'TravelAPI',
      {
        authenticate_travel: () => {
          for (const k of ['client_id', 'client_secret', 'refresh_token']) r(k);
          const scope = r('grant_type');
          const first = r('user_first_name');
          const last = r('user_last_name');
          this.token_expires_in = 2;
          this.access_token = String(this.random.randint(100000, 999999));
          this.token_type = 'Bearer';
          this.token_scope = scope;
          this.user_first_name = first;
          this.user_last_name = last;
          return { expires_in: 2, access_token: this.access_token, token_type: 'Bearer', scope };
        },
        travel_get_login_status: () => ({
          status: !(this.token_expires_in === null || this.token_expires_in === 0),
        }),
        get_budget_fiscal_year: () => ({ budget_fiscal_year: '2018' }),
        register_credit_card: () => {
          const token = r('access_token');
          const number = r('card_number');
          const expiry = r('expiration_date');
          const holder = r('cardholder_name');
          const cvv = r('card_verification_number');
          if (this.token_expires_in === null) return { error: 'Token not initialized' };
          const bad = tokenError(token);
          if (bad) return bad;
          if (Object.hasOwn(this.credit_card_list, str(number))) return { error: 'Card already registered' };
          const id = String(this.random.randint(100000000000, 999999999999));
          this.credit_card_list[id] = {
            card_number: number,
            expiration_date: expiry,
            cardholder_name: holder,
            card_verification_number: cvv,
            balance: this.random.randint(10000, 99999),
          };
          return { card_id: id };
        },
        get_flight_cost: () => ({
          travel_cost_list: this.flightCost(
            str(r('travel_from')),
            str(r('travel_to')),
            str(r('travel_date')),
            str(r('travel_class')),
          ),
        }),
        get_credit_card_balance: () => {
          const token = r('access_token');
          const id = r('card_id');
          const bad = tokenError(token);
          if (bad) return bad;
          const card = this.card(id);
          if (card === undefined)
            return {
              error: `Card not registered. Here are a list of card_id's: ${pyRepr(Object.keys(this.credit_card_list))}`,
            };
          return { card_balance: item(card, 'balance') };
        },
        book_flight: () => {
          const token = r('access_token');
          const cardId = r('card_id');
          const date = str(r('travel_date'));
          const from = str(r('travel_from'));
          const to = str(r('travel_to'));
          const travelClass = str(r('travel_class'));
          const fail = (error: string): Dict => ({ booking_status: false, error });
          const bad = tokenError(token, { booking_status: false });
          if (bad) return bad;
          const card = this.card(cardId);
          if (card === undefined) return fail('Card not registered');
          if (!('balance' in card)) return fail('Balance not found');
          if (!AIRPORTS.includes(from)) return fail(`Invalid departure airport code: ${from}`);
          if (!AIRPORTS.includes(to)) return fail(`Invalid destination airport code: ${to}`);
          if (!validDate(date)) return fail('Invalid date format. Use YYYY-MM-DD.');
          if (!Object.hasOwn(CLASS_FACTOR, travelClass))
            return fail("Invalid travel class. Must be one of {'economy', 'business', 'first'}");
          let cost: number;
          try {
            this.flightCost(from, to, date, travelClass);
            const cached = this.costCache.get(`${from}|${to}|${travelClass}|${date}`);
            if (cached === undefined) return fail('No available route for the given parameters');
            cost = cached;
          } catch (e) {
            if (e instanceof PyError) return fail(e.message);
            throw e;
          }
          const balance = num(card.balance ?? null);
          if (balance < cost) return fail('Insufficient funds');
          if (this.budget_limit !== null && balance < num(this.budget_limit))
            return fail('Balance is less than budget limit');
          card.balance = balance - cost;
          const bookingId = String(this.random.randint(1000000, 9999999));
          const transactionId = String(this.random.randint(10000000, 99999999));
          this.booking_record.set(bookingId, {
            card_id: cardId,
            travel_date: date,
            travel_from: from,
            travel_to: to,
            travel_class: travelClass,
            travel_cost: cost,
            transaction_id: transactionId,
          });
          return {
            booking_id: bookingId,
            transaction_id: transactionId,
            booking_status: true,
            booking_history: this.long_context ? this.booking_record : {},
          };
        },
        retrieve_invoice: () => {
          const token = r('access_token');
          const id = a.booking_id ?? null;
          const bad = tokenError(token);
          if (bad) return bad;
          const booking = id === null ? undefined : this.booking_record.get(str(id));
          if (booking === undefined) return { error: 'Booking not found' };
          const field = (k: string): PyValue => item(booking, k);
          return {
            invoice: {
              booking_id: id,
              travel_date: field('travel_date'),
              travel_from: field('travel_from'),
              travel_to: field('travel_to'),
              travel_class: field('travel_class'),
              travel_cost: field('travel_cost'),
              transaction_id: field('transaction_id'),
            },
          };
        },
        get_booking_history: () => tokenError(r('access_token')) ?? { booking_history: deepCopy(this.booking_record) },
        list_all_airports: () => [...AIRPORTS],
        cancel_booking: () => {
          const token = r('access_token');
          const id = str(r('booking_id'));
          const bad = tokenError(token, { cancel_status: false });
          if (bad) return bad;
          const booking = this.booking_record.get(id);
          if (booking === undefined) return { cancel_status: false, error: 'Booking not found' };
          const card = this.card(item(booking, 'card_id'));
          if (card === undefined) throw new PyError(pyRepr(item(booking, 'card_id')));
          card.balance = num(item(card, 'balance')) + num(item(booking, 'travel_cost'));
          this.booking_record.delete(id);
          return { cancel_status: true };
        },
        compute_exchange_rate: () => {
          const base = str(r('base_currency'));
          const target = str(r('target_currency'));
          const value = num(r('value'));
          for (const [currency, rate] of RATES) {
            if (base === 'USD' && target === currency) return { exchanged_value: value * rate };
            if (base === currency && target === 'USD') return { exchanged_value: round2(value / rate) };
          }
          throw new PyError('No available exchange rate for the given currencies.');
        },
        verify_traveler_information: () => {
          const first = r('first_name');
          const last = r('last_name');
          const birth = str(r('date_of_birth'));
          const passport = str(r('passport_number'));
          if (this.user_first_name !== first || this.user_last_name !== last)
            return {
              verification_status: false,
              verification_failure: `Cannot book flight information for another user.Expected ${pyStrOrNone(this.user_first_name)} ${pyStrOrNone(this.user_last_name)}, got ${str(first)} ${str(last)}`,
            };
          if (!validDate(birth))
            return {
              verification_status: false,
              verification_failure: 'Invalid date of birth format. Please use YYYY-MM-DD.',
            };
          const [y, m, d] = birth.split('-').map(Number) as [number, number, number];
          const today = new Date();
          const [ty, tm, td] = [today.getFullYear(), today.getMonth() + 1, today.getDate()];
          const age = ty - y - (tm < m || (tm === m && td < d) ? 1 : 0);
          if (age < 18)
            return { verification_status: false, verification_failure: 'Traveler must be at least 18 years old.' };
          if (!passport.startsWith('US'))
            return {
              verification_status: false,
              verification_failure: 'Passport must be issued by the United States.',
            };
          return { verification_status: true };
        },
        set_budget_limit: () => {
          const token = r('access_token');
          const limit = num(r('budget_limit'));
          const bad = tokenError(token);
          if (bad) return bad;
          this.budget_limit = limit;
          return { budget_limit: limit };
        },
        get_nearest_airport_by_city: () => {
          const city = str(r('location'));
          return { nearest_airport: Object.hasOwn(CITY_AIRPORT, city) ? (CITY_AIRPORT[city] ?? '') : 'Unknown' };
        },
        purchase_insurance: () => {
          const token = r('access_token');
          r('insurance_type');
          const bookingId = str(r('booking_id'));
          const cost = num(r('insurance_cost'));
          const cardId = r('card_id');
          const bad = tokenError(token, { insurance_status: false });
          if (bad) return bad;
          if (this.budget_limit !== null && num(this.budget_limit) < cost)
            return { insurance_status: false, error: 'Exceeded budget limit' };
          if (!this.booking_record.has(bookingId)) return { insurance_status: false, error: 'Booking not found' };
          const card = this.card(cardId);
          if (card === undefined) return { insurance_status: false, error: 'Credit card not registered' };
          card.balance = num(item(card, 'balance')) - cost;
          return { insurance_id: String(this.random.randint(100000000, 999999999)), insurance_status: true };
        },
        contact_customer_support: () => {
          const id = str(r('booking_id'));
          r('message');
          if (!this.booking_record.has(id)) return { error: 'Booking not found' };
          return {
            customer_support_message:
              'Thank you for contacting customer support. Your message has been received and we will get back to you shortly.',
          };
        },
        get_all_credit_cards: () => ({ credit_card_list: this.credit_card_list }),
      },
      method,
      a,
    );
  }
}

const pyStrOrNone = (v: PyValue): string => (v === null || v === undefined ? 'None' : str(v));
