/** The admin command line on MariaDB/MySQL: the tests of admin-suite.ts, in a file of its own to run beside the others. */
import { forEachDatabase } from '../helpers/databases.js';
import { adminSuite } from './admin-suite.js';

forEachDatabase(adminSuite, ['mysql']);
