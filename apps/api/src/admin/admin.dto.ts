import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class CreateAccountDto {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name!: string;
}

export class CreatedAccountView {
  @ApiProperty({ example: 42 }) id!: number;
  @ApiProperty({ example: 'Acme' }) name!: string;
  @ApiProperty({ description: 'The account API key. Shown once: store it now.' }) apiKey!: string;
}

export class CreatedApiKeyView {
  @ApiProperty({ example: 'key_01jd2x7q9m3k8p4r6t1v5w0y2z' }) id!: string;
  @ApiProperty({ description: 'The API key. Shown once: store it now.' }) apiKey!: string;
}
