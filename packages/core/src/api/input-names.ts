/** The names of the API URL, key and profile settings in hints. */
export interface ApiInputNames {
  /** Default `baseUrl`, the option of the clients. */
  apiUrl: string;
  /** Default `token`, the option of the clients. */
  apiKey: string;
  /** Default `the profile name` (assignBuilder's argument). */
  profileName: string;
}

/** The SDK's names: the clients' options. */
export const SDK_INPUT_NAMES: Readonly<ApiInputNames> = {
  apiUrl: 'baseUrl',
  apiKey: 'token',
  profileName: 'the profile name'
};

/** The actions' inputs. */
export const ACTION_INPUT_NAMES: Readonly<ApiInputNames> = {
  apiUrl: 'api-url',
  apiKey: 'api-key',
  profileName: 'profile-name'
};
