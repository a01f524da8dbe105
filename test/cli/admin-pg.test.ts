/** The admin command line on PostgreSQL: the tests of admin-suite.ts, in a file of its own to run beside the others. */
import { forEachDatabase } from '../helpers/databases.js';
import { adminSuite } from './admin-suite.js';

forEachDatabase(adminSuite, ['pg']);
