/**
 * Word lists for the scale seeder (`seed --scale N`): names by language, and for each country a few real cities
 * with their state code and a postcode pattern in the country's own format. `#` in a pattern is a digit, `@` a
 * capital letter. Email domains are reserved example domains (RFC 2606), so a seeded store never mails anyone.
 */

export interface NamePool {
  first: string[];
  last: string[];
}

// prettier-ignore
export const NAMES: Record<string, NamePool> = {
  en: {
    first: [
      'James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'William', 'Elizabeth', 'David', 'Barbara', 'Richard', 'Susan',
      'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Daniel', 'Nancy', 'Matthew', 'Lisa', 'Anthony', 'Betty', 'Mark', 'Margaret',
      'Steven', 'Sandra', 'Paul', 'Ashley', 'Andrew', 'Emily', 'Joshua', 'Donna', 'Kevin', 'Michelle', 'Brian', 'Amanda', 'Oliver', 'Amelia',
      'George', 'Isla', 'Harry', 'Olivia', 'Jack', 'Ava', 'Noah', 'Grace', 'Liam', 'Chloe', 'Ethan', 'Sophie', 'Lucas', 'Zoe', 'Mason', 'Ruby',
    ],
    last: [
      'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Jackson', 'Martin',
      'Lee', 'Thompson', 'White', 'Harris', 'Clark', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Green', 'Baker',
      'Adams', 'Nelson', 'Hill', 'Campbell', 'Mitchell', 'Roberts', 'Carter', 'Phillips', 'Evans', 'Turner', 'Parker', 'Collins', 'Edwards',
      'Stewart', 'Morris', 'Murphy', 'Cook', 'Rogers', 'Morgan', 'Cooper', 'Peterson', 'Reed', 'Bailey', 'Bell', 'Kelly', 'Howard', 'Ward', 'Cox',
      'Richardson', 'Wood', 'Watson', 'Brooks', 'Bennett', 'Gray', 'Hughes', 'Price', 'Sanders', 'Patel', 'Nguyen', 'Kim', 'Chen', 'Singh',
    ],
  },
  de: {
    first: [
      'Lena', 'Lukas', 'Anna', 'Leon', 'Mia', 'Finn', 'Hannah', 'Jonas', 'Emma', 'Paul', 'Sophie', 'Felix', 'Marie', 'Maximilian', 'Laura', 'Jan',
      'Julia', 'Tim', 'Lea', 'Niklas', 'Katharina', 'Jürgen', 'Sabine', 'Stefan', 'Petra', 'Uwe', 'Birgit', 'Matthias', 'Claudia', 'Jörg',
    ],
    last: [
      'Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Schäfer', 'Koch', 'Bauer',
      'Richter', 'Klein', 'Wolf', 'Schröder', 'Neumann', 'Schwarz', 'Zimmermann', 'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schmitt',
      'Werner', 'Krause', 'Meier', 'Lehmann', 'Köhler', 'Weiß', 'Groß', 'Vogel', 'Friedrich',
    ],
  },
  fr: {
    first: [
      'Camille', 'Louis', 'Léa', 'Gabriel', 'Manon', 'Hugo', 'Chloé', 'Jules', 'Inès', 'Arthur', 'Sarah', 'Raphaël', 'Juliette', 'Théo', 'Élodie',
      'Nicolas', 'Aurélie', 'Julien', 'Céline', 'François', 'Mathilde', 'Antoine', 'Margaux', 'Étienne', 'Héloïse',
    ],
    last: [
      'Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefèvre', 'Michel',
      'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Lefebvre', 'Mercier', 'Dupont', 'Lambert',
      'Bonnet', 'François', 'Martinez',
    ],
  },
  es: {
    first: [
      'Lucía', 'Hugo', 'Martina', 'Mateo', 'Sofía', 'Leo', 'María', 'Daniel', 'Paula', 'Alejandro', 'Valeria', 'Pablo', 'Carmen', 'Javier', 'Elena',
      'Álvaro', 'Marta', 'Sergio', 'Ana', 'Diego', 'Isabel', 'Jorge', 'Lorena', 'Raúl',
    ],
    last: [
      'García', 'Rodríguez', 'González', 'Fernández', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Martín', 'Jiménez', 'Ruiz', 'Hernández',
      'Díaz', 'Moreno', 'Muñoz', 'Álvarez', 'Romero', 'Alonso', 'Gutiérrez', 'Navarro', 'Torres', 'Domínguez', 'Vázquez', 'Ramos', 'Castillo',
    ],
  },
  it: {
    first: [
      'Giulia', 'Francesco', 'Sofia', 'Alessandro', 'Aurora', 'Lorenzo', 'Alice', 'Matteo', 'Ginevra', 'Leonardo', 'Emma', 'Andrea', 'Chiara',
      'Marco', 'Federica', 'Luca', 'Valentina', 'Giovanni', 'Elisa', 'Nicolò',
    ],
    last: [
      'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti', 'De Luca',
      'Mancini', 'Costa', 'Giordano', 'Rizzo', 'Lombardi', 'Moretti', 'Barbieri', 'Fontana', 'Santoro', 'Mariani',
    ],
  },
  nl: {
    first: ['Daan', 'Emma', 'Sem', 'Julia', 'Lucas', 'Tess', 'Levi', 'Sophie', 'Finn', 'Anna', 'Milan', 'Fenna', 'Bram', 'Sanne', 'Thijs', 'Lotte'],
    last: ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters'],
  },
  sv: {
    first: ['Alice', 'William', 'Maja', 'Oscar', 'Elsa', 'Hugo', 'Astrid', 'Liam', 'Wilma', 'Erik', 'Ebba', 'Karl', 'Ingrid', 'Nils', 'Saga', 'Axel'],
    last: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Pettersson', 'Lindberg', 'Lindström', 'Åberg'],
  },
};

export interface City {
  city: string;
  state: string;
  /** Postcode pattern: `#` a digit, `@` a capital letter, anything else as is. */
  postcode: string;
  /** Phone prefix with the area code, the rest is digits. */
  phone: string;
}

export interface CountryData {
  code: string;
  /** Relative share of customers. */
  weight: number;
  /** Name pools, the first one most likely. */
  names: string[];
  streets: string[];
  /** How a street address is written: `{n} {street}` or `{street} {n}`. */
  numberFirst: boolean;
  cities: City[];
}

// prettier-ignore
export const COUNTRIES: CountryData[] = [
  {
    code: 'US',
    weight: 40,
    names: ['en', 'en', 'en', 'es'],
    numberFirst: true,
    streets: ['Main Street', 'Oak Avenue', 'Maple Drive', 'Cedar Lane', 'Park Avenue', 'Washington Street', 'Lake Road', 'Hill Street', 'Pine Street', 'Sunset Boulevard', 'Elm Street', 'Market Street'],
    cities: [
      { city: 'San Francisco', state: 'CA', postcode: '941##', phone: '+1 415 555 ' },
      { city: 'Los Angeles', state: 'CA', postcode: '900##', phone: '+1 213 555 ' },
      { city: 'New York', state: 'NY', postcode: '100##', phone: '+1 212 555 ' },
      { city: 'Austin', state: 'TX', postcode: '787##', phone: '+1 512 555 ' },
      { city: 'Chicago', state: 'IL', postcode: '606##', phone: '+1 312 555 ' },
      { city: 'Seattle', state: 'WA', postcode: '981##', phone: '+1 206 555 ' },
      { city: 'Denver', state: 'CO', postcode: '802##', phone: '+1 303 555 ' },
      { city: 'Boston', state: 'MA', postcode: '021##', phone: '+1 617 555 ' },
      { city: 'Miami', state: 'FL', postcode: '331##', phone: '+1 305 555 ' },
      { city: 'Portland', state: 'OR', postcode: '972##', phone: '+1 503 555 ' },
      { city: 'Atlanta', state: 'GA', postcode: '303##', phone: '+1 404 555 ' },
      { city: 'Phoenix', state: 'AZ', postcode: '850##', phone: '+1 602 555 ' },
    ],
  },
  {
    code: 'GB',
    weight: 12,
    names: ['en'],
    numberFirst: true,
    streets: ['High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Green Lane', 'Manor Road', 'Park Road', 'Queens Road', 'Mill Lane', 'King Street'],
    cities: [
      { city: 'London', state: '', postcode: 'SW1A #@@', phone: '+44 20 7946 ' },
      { city: 'London', state: '', postcode: 'E1 #@@', phone: '+44 20 7946 ' },
      { city: 'Manchester', state: '', postcode: 'M1 #@@', phone: '+44 161 496 ' },
      { city: 'Edinburgh', state: '', postcode: 'EH1 #@@', phone: '+44 131 496 ' },
      { city: 'Bristol', state: '', postcode: 'BS1 #@@', phone: '+44 117 496 ' },
      { city: 'Leeds', state: '', postcode: 'LS1 #@@', phone: '+44 113 496 ' },
    ],
  },
  {
    code: 'DE',
    weight: 12,
    names: ['de', 'de', 'de', 'en'],
    numberFirst: false,
    streets: ['Hauptstraße', 'Schulstraße', 'Gartenstraße', 'Bahnhofstraße', 'Dorfstraße', 'Bergstraße', 'Lindenstraße', 'Kirchweg', 'Friedrichstraße', 'Am Markt'],
    cities: [
      { city: 'Berlin', state: 'BE', postcode: '101##', phone: '+49 30 ' },
      { city: 'München', state: 'BY', postcode: '803##', phone: '+49 89 ' },
      { city: 'Hamburg', state: 'HH', postcode: '200##', phone: '+49 40 ' },
      { city: 'Köln', state: 'NW', postcode: '506##', phone: '+49 221 ' },
      { city: 'Frankfurt am Main', state: 'HE', postcode: '603##', phone: '+49 69 ' },
      { city: 'Leipzig', state: 'SN', postcode: '041##', phone: '+49 341 ' },
    ],
  },
  {
    code: 'FR',
    weight: 8,
    names: ['fr'],
    numberFirst: true,
    streets: ['rue de la Paix', 'avenue Victor Hugo', 'rue du Moulin', 'boulevard Saint-Michel', 'rue des Écoles', 'place de la République', 'rue Pasteur'],
    cities: [
      { city: 'Paris', state: '', postcode: '750##', phone: '+33 1 ' },
      { city: 'Lyon', state: '', postcode: '6900#', phone: '+33 4 ' },
      { city: 'Marseille', state: '', postcode: '130##', phone: '+33 4 ' },
      { city: 'Bordeaux', state: '', postcode: '3300#', phone: '+33 5 ' },
      { city: 'Lille', state: '', postcode: '5900#', phone: '+33 3 ' },
    ],
  },
  {
    code: 'CA',
    weight: 7,
    names: ['en', 'en', 'fr'],
    numberFirst: true,
    streets: ['Queen Street', 'King Street West', 'Maple Avenue', 'rue Sainte-Catherine', 'Granville Street', 'Yonge Street', 'Bank Street'],
    cities: [
      { city: 'Toronto', state: 'ON', postcode: 'M5V #@#', phone: '+1 416 555 ' },
      { city: 'Vancouver', state: 'BC', postcode: 'V6B #@#', phone: '+1 604 555 ' },
      { city: 'Montréal', state: 'QC', postcode: 'H2X #@#', phone: '+1 514 555 ' },
      { city: 'Ottawa', state: 'ON', postcode: 'K1P #@#', phone: '+1 613 555 ' },
      { city: 'Calgary', state: 'AB', postcode: 'T2P #@#', phone: '+1 403 555 ' },
    ],
  },
  {
    code: 'AU',
    weight: 6,
    names: ['en'],
    numberFirst: true,
    streets: ['George Street', 'Collins Street', 'Queen Street', 'Beach Road', 'Bridge Road', 'Church Street', 'Victoria Street'],
    cities: [
      { city: 'Sydney', state: 'NSW', postcode: '20##', phone: '+61 2 5550 ' },
      { city: 'Melbourne', state: 'VIC', postcode: '30##', phone: '+61 3 5550 ' },
      { city: 'Brisbane', state: 'QLD', postcode: '40##', phone: '+61 7 5550 ' },
      { city: 'Perth', state: 'WA', postcode: '60##', phone: '+61 8 5550 ' },
    ],
  },
  {
    code: 'NL',
    weight: 4,
    names: ['nl'],
    numberFirst: false,
    streets: ['Kerkstraat', 'Dorpsstraat', 'Stationsweg', 'Molenweg', 'Prinsengracht', 'Keizersgracht', 'Julianastraat'],
    cities: [
      { city: 'Amsterdam', state: '', postcode: '10## @@', phone: '+31 20 ' },
      { city: 'Rotterdam', state: '', postcode: '30## @@', phone: '+31 10 ' },
      { city: 'Utrecht', state: '', postcode: '35## @@', phone: '+31 30 ' },
    ],
  },
  {
    code: 'ES',
    weight: 4,
    names: ['es'],
    numberFirst: false,
    streets: ['Calle Mayor', 'Calle de Alcalá', 'Avenida de la Constitución', 'Calle Real', 'Paseo de Gracia', 'Calle del Sol'],
    cities: [
      { city: 'Madrid', state: 'M', postcode: '280##', phone: '+34 91 ' },
      { city: 'Barcelona', state: 'B', postcode: '080##', phone: '+34 93 ' },
      { city: 'Valencia', state: 'V', postcode: '460##', phone: '+34 96 ' },
      { city: 'Sevilla', state: 'SE', postcode: '410##', phone: '+34 95 ' },
    ],
  },
  {
    code: 'IT',
    weight: 4,
    names: ['it'],
    numberFirst: false,
    streets: ['Via Roma', 'Via Garibaldi', 'Corso Italia', 'Via Dante', 'Via Mazzini', 'Piazza del Duomo', 'Via Verdi'],
    cities: [
      { city: 'Roma', state: 'RM', postcode: '001##', phone: '+39 06 ' },
      { city: 'Milano', state: 'MI', postcode: '201##', phone: '+39 02 ' },
      { city: 'Torino', state: 'TO', postcode: '101##', phone: '+39 011 ' },
      { city: 'Firenze', state: 'FI', postcode: '501##', phone: '+39 055 ' },
    ],
  },
  {
    code: 'SE',
    weight: 3,
    names: ['sv'],
    numberFirst: false,
    streets: ['Storgatan', 'Drottninggatan', 'Kungsgatan', 'Skolgatan', 'Järnvägsgatan', 'Sveavägen'],
    cities: [
      { city: 'Stockholm', state: '', postcode: '11# ##', phone: '+46 8 ' },
      { city: 'Göteborg', state: '', postcode: '41# ##', phone: '+46 31 ' },
      { city: 'Malmö', state: '', postcode: '21# ##', phone: '+46 40 ' },
    ],
  },
];

export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example.com', 'inbox.example.net', 'post.example.org', 'shop.example'];

export const COMPANIES = [
  'Acme Corp',
  'Globex',
  'Initech',
  'Umbrella Ltd',
  'Stark Industries',
  'Wayne Enterprises',
  'Hooli',
  'Vandelay Industries',
  'Soylent GmbH',
  'Tyrell SA',
];
