// VehicleControlAPI (vehicle_control.json): one car's engine, doors, climate, brakes and trip tools.
import { filler } from '../filler.ts';
import { PyRandom } from '../py-random.ts';
import { deepCopy, type PyValue } from '../py-value.ts';
import { type Args, type BfclEnv, type Dict, dispatch, isDict, item, num, opt, req, str, truthy } from './env.ts';

const DISTANCES: readonly (readonly [string, string, number])[] = [
  ['83214', '74532', 750],
  ['56108', '62947', 320],
  ['71354', '83462', 450],
  ['47329', '52013', 290],
  ['69238', '51479', 630],
  ['94016', '83214', 980],
  ['94016', '94704', 600],
  ['94704', '08540', 2550],
  ['94016', '08540', 1950],
  ['62947', '47329', 1053],
  ['94016', '62947', 780],
  ['74532', '94016', 880],
];

const ZIPCODES: Readonly<Record<string, string>> = {
  Rivermist: '83214',
  Stonebrook: '74532',
  Maplecrest: '56108',
  Silverpine: '62947',
  Shadowridge: '71354',
  'Sunset Valley': '83462',
  Oakendale: '47329',
  Willowbend: '52013',
  'Crescent Hollow': '69238',
  Autumnville: '51479',
  'San Francisco': '94016',
};

export class VehicleControlAPI implements BfclEnv {
  fuelLevel = 0;
  batteryVoltage = 12.6;
  engine_state: PyValue = 'stopped';
  remainingUnlockedDoors = 4;
  doorStatus: Dict = {};
  acTemperature: PyValue = 25;
  fanSpeed: PyValue = 50;
  acMode: PyValue = 'auto';
  humidityLevel: PyValue = 50;
  headLightStatus: PyValue = 'off';
  parkingBrakeStatus: PyValue = 'released';
  brakePedalStatus: PyValue = 'released';
  distanceToNextVehicle: PyValue = 50;
  cruiseStatus: PyValue = 'inactive';
  destination: PyValue = 'None';
  frontLeftTirePressure: PyValue = 32;
  frontRightTirePressure: PyValue = 32;
  rearLeftTirePressure: PyValue = 30;
  rearRightTirePressure: PyValue = 30;
  long_context = false;
  private parkingBrakeForce: PyValue = 0;
  private slopeAngle: PyValue = 0;
  private brakePedalForce: PyValue = 0;
  private random = new PyRandom(141053);

  load(cfg: Dict, longContext: boolean): void {
    const c = deepCopy(cfg);
    const get = (k: string, d: PyValue): PyValue => (k in c ? c[k] : d);
    this.random = new PyRandom(Number(get('random_seed', 141053)));
    this.fuelLevel = num(get('fuelLevel', 0));
    this.batteryVoltage = num(get('batteryVoltage', 12.6));
    this.engine_state = get('engineState', 'stopped');
    const doors = get('doorStatus', {
      driver: 'unlocked',
      passenger: 'unlocked',
      rear_left: 'unlocked',
      rear_right: 'unlocked',
    });
    this.doorStatus = isDict(doors) ? doors : {};
    this.remainingUnlockedDoors = 4 - Object.values(this.doorStatus).filter((s) => s === 'locked').length;
    this.acTemperature = get('acTemperature', 25);
    this.fanSpeed = get('fanSpeed', 50);
    this.acMode = get('acMode', 'auto');
    this.humidityLevel = get('humidityLevel', 50);
    this.headLightStatus = get('headLightStatus', 'off');
    this.parkingBrakeStatus = get('parkingBrakeStatus', 'released');
    this.parkingBrakeForce = get('parkingBrakeForce', 0);
    this.slopeAngle = get('slopeAngle', 0);
    this.brakePedalStatus = get('brakePedalStatus', 'released');
    this.brakePedalForce = get('brakePedalForce', 0);
    this.distanceToNextVehicle = get('distanceToNextVehicle', 50);
    this.cruiseStatus = get('cruiseStatus', 'inactive');
    this.destination = get('destination', 'None');
    this.frontLeftTirePressure = get('frontLeftTirePressure', 32);
    this.frontRightTirePressure = get('frontRightTirePressure', 32);
    this.rearLeftTirePressure = get('rearLeftTirePressure', 30);
    this.rearRightTirePressure = get('rearRightTirePressure', 30);
    this.long_context = longContext;
  }

  state(): Record<string, PyValue> {
    return {
      fuelLevel: this.fuelLevel,
      batteryVoltage: this.batteryVoltage,
      engine_state: this.engine_state,
      remainingUnlockedDoors: this.remainingUnlockedDoors,
      doorStatus: this.doorStatus,
      acTemperature: this.acTemperature,
      fanSpeed: this.fanSpeed,
      acMode: this.acMode,
      humidityLevel: this.humidityLevel,
      headLightStatus: this.headLightStatus,
      parkingBrakeStatus: this.parkingBrakeStatus,
      brakePedalStatus: this.brakePedalStatus,
      distanceToNextVehicle: this.distanceToNextVehicle,
      cruiseStatus: this.cruiseStatus,
      destination: this.destination,
      frontLeftTirePressure: this.frontLeftTirePressure,
      frontRightTirePressure: this.frontRightTirePressure,
      rearLeftTirePressure: this.rearLeftTirePressure,
      rearRightTirePressure: this.rearRightTirePressure,
      long_context: this.long_context,
    };
  }

  call(method: string, a: Args): PyValue {
    const r = (name: string): PyValue => req(a, method, name);
    const parking = (status: string, force: number): Dict => {
      this.parkingBrakeStatus = status;
      this.parkingBrakeForce = force;
      this.slopeAngle = 10;
      const out: Dict = { parkingBrakeStatus: status, _parkingBrakeForce: force, _slopeAngle: 10 };
      return this.long_context ? { parkingBrakeInstruction: filler().PARKING_BRAKE_INSTRUCTION, ...out } : out;
    };
    return dispatch(
      'VehicleControlAPI',
      {
        startEngine: () => {
          const mode = r('ignitionMode');
          if (mode === 'STOP') this.engine_state = 'stopped';
          if (this.remainingUnlockedDoors > 0)
            return {
              error: `All doors must be locked before starting the engine. Here are the unlocked doors: ${Object.entries(
                this.doorStatus,
              )
                .filter(([, s]) => s === 'unlocked')
                .map(([d]) => d)
                .join(', ')}`,
            };
          if (this.brakePedalStatus !== 'pressed')
            return { error: 'Brake pedal needs to be pressed when starting the engine.' };
          if (this.brakePedalForce !== 1000) return { error: 'Must press the brake fully before starting the engine.' };
          if (this.fuelLevel < 0) return { error: 'Fuel tank is empty.' };
          if (mode !== 'START') return { error: 'Invalid ignition mode.' };
          this.engine_state = 'running';
          return { engineState: this.engine_state, fuelLevel: this.fuelLevel, batteryVoltage: this.batteryVoltage };
        },
        fillFuelTank: () => {
          const amount = num(r('fuelAmount'));
          if (amount < 0) return { error: 'Fuel amount cannot be negative.' };
          if (this.fuelLevel + amount > 50) return { error: 'Cannot fill gas above the tank capacity.' };
          if (this.fuelLevel + amount < 0) return { error: 'Fuel tank is empty. Min fuel level is 0 gallons.' };
          this.fuelLevel += amount;
          return { fuelLevel: this.fuelLevel };
        },
        lockDoors: () => {
          const unlock = truthy(r('unlock'));
          const doors = r('door') as PyValue[];
          const target = unlock ? 'unlocked' : 'locked';
          for (const d of doors) {
            if (item(this.doorStatus, str(d)) === target) continue;
            this.doorStatus[str(d)] = target;
            this.remainingUnlockedDoors += unlock ? 1 : -1;
          }
          return { lockStatus: target, remainingUnlockedDoors: this.remainingUnlockedDoors };
        },
        adjustClimateControl: () => {
          const temperature = num(r('temperature'));
          const unit = opt(a, 'unit', 'celsius');
          const fanSpeed = opt(a, 'fanSpeed', 50);
          const mode = opt(a, 'mode', 'auto');
          if (!(num(fanSpeed) >= 0 && num(fanSpeed) <= 100)) return { error: 'Fan speed must be between 0 and 100.' };
          this.acTemperature = unit === 'fahrenheit' ? ((temperature - 32) * 5) / 9 : temperature;
          this.fanSpeed = fanSpeed;
          this.acMode = mode;
          return { currentACTemperature: temperature, climateMode: mode, humidityLevel: this.humidityLevel };
        },
        get_outside_temperature_from_google: () => {
          const t = this.random.uniform(-10, 40);
          return this.long_context
            ? { ...filler().LONG_WEATHER_EXTENSION, outsideTemperature: t }
            : { outsideTemperature: t };
        },
        get_outside_temperature_from_weather_com: () => ({ error: 404 }),
        setHeadlights: () => {
          const mode = r('mode');
          if (mode !== 'on' && mode !== 'off' && mode !== 'auto') return { error: 'Invalid headlight mode.' };
          this.headLightStatus = mode === 'on' ? 'on' : 'off';
          return { headlightStatus: this.headLightStatus };
        },
        displayCarStatus: () => {
          const option = r('option');
          const status: Dict = this.long_context ? { metadata: filler().CAR_STATUS_METADATA_EXTENSION } : {};
          if (option === 'fuel') status.fuelLevel = this.fuelLevel;
          else if (option === 'battery') status.batteryVoltage = this.batteryVoltage;
          else if (option === 'doors') status.doorStatus = this.doorStatus;
          else if (option === 'climate') {
            status.currentACTemperature = this.acTemperature;
            status.fanSpeed = this.fanSpeed;
            status.climateMode = this.acMode;
            status.humidityLevel = this.humidityLevel;
          } else if (option === 'headlights') status.headlightStatus = this.headLightStatus;
          else if (option === 'parkingBrake') {
            status.parkingBrakeStatus = this.parkingBrakeStatus;
            status.parkingBrakeForce = this.parkingBrakeForce;
            status.slopeAngle = this.slopeAngle;
          } else if (option === 'brakePedal') {
            status.brakePedalStatus = this.brakePedalStatus;
            status.brakePedalForce = this.brakePedalForce;
          } else if (option === 'engine') status.engineState = this.engine_state;
          else status.error = 'Invalid option';
          return status;
        },
        activateParkingBrake: () => {
          const mode = r('mode');
          if (mode === 'engage') return parking('engaged', 500);
          if (mode === 'release') return parking('released', 0);
          return { error: 'Invalid mode' };
        },
        pressBrakePedal: () => {
          const p = num(r('pedalPosition'));
          if (!(p >= 0 && p <= 1)) return { error: 'Pedal position must be between 0 and 1.' };
          if (p === 0) {
            this.brakePedalStatus = 'released';
            this.brakePedalForce = 0;
            return { brakePedalStatus: 'released', brakePedalForce: 0 };
          }
          this.brakePedalStatus = 'pressed';
          this.brakePedalForce = p * 1000;
          return { brakePedalStatus: 'pressed', brakePedalForce: p * 1000 };
        },
        releaseBrakePedal: () => {
          this.brakePedalStatus = 'released';
          this.brakePedalForce = 0;
          return { brakePedalStatus: 'released', brakePedalForce: 0 };
        },
        setCruiseControl: () => {
          const speed = num(r('speed'));
          const activate = truthy(r('activate'));
          const distance = num(r('distanceToNextVehicle'));
          if (this.engine_state === 'stopped')
            return { error: 'Start the engine before activating the cruise control.' };
          this.distanceToNextVehicle = distance;
          if (activate) {
            if (speed < 0 || speed > 120 || speed % 5 !== 0) return { error: 'Invalid speed' };
            this.cruiseStatus = 'active';
          } else this.cruiseStatus = 'inactive';
          return { cruiseStatus: this.cruiseStatus, currentSpeed: speed, distanceToNextVehicle: distance };
        },
        get_current_speed: () => ({ currentSpeed: this.random.uniform(0, 120) }),
        display_log: () => ({ log: r('messages') }),
        estimate_drive_feasibility_by_mileage: () => ({ canDrive: !(this.fuelLevel * 20 < num(r('distance'))) }),
        liter_to_gallon: () => ({ gallon: num(r('liter')) * 0.264172 }),
        gallon_to_liter: () => ({ liter: num(r('gallon')) * 3.78541 }),
        estimate_distance: () => {
          const x = r('cityA');
          const y = r('cityB');
          const hit = DISTANCES.find(([p, q]) => (x === p && y === q) || (x === q && y === p));
          const out: Dict = hit === undefined ? { error: 'distance not found in database.' } : { distance: hit[2] };
          if (this.long_context) out.intermediaryCities = [...filler().INTERMEDIARY_CITIES];
          return out;
        },
        get_zipcode_based_on_city: () => {
          const city = str(r('city'));
          return { zipcode: Object.hasOwn(ZIPCODES, city) ? (ZIPCODES[city] ?? '') : '00000' };
        },
        set_navigation: () => {
          const destination = r('destination');
          this.destination = destination;
          return { status: `Navigating to ${str(destination)}` };
        },
        check_tire_pressure: () => {
          const avg =
            (num(this.frontLeftTirePressure) +
              num(this.frontRightTirePressure) +
              num(this.rearLeftTirePressure) +
              num(this.rearRightTirePressure)) /
            4;
          return {
            frontLeftTirePressure: this.frontLeftTirePressure,
            frontRightTirePressure: this.frontRightTirePressure,
            rearLeftTirePressure: this.rearLeftTirePressure,
            rearRightTirePressure: this.rearRightTirePressure,
            healthy_tire_pressure: avg >= 30 && avg <= 35,
            car_info: this.long_context ? filler().CAR_STATUS_METADATA_EXTENSION : {},
          };
        },
        find_nearest_tire_shop: () => ({ shopLocation: '456 Oakwood Avenue, Rivermist, 83214' }),
      },
      method,
      a,
    );
  }
}
